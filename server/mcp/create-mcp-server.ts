import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type CallToolRequest, CallToolRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { recordAuditEvent, resolveAuditScope } from "../modules/audit/record-audit-event";
import type { UseCaseContext } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { unstorableTextFields, zodErrorToFields } from "../shared/request-fields";
import { auditedArguments, auditedToolName } from "./audited-arguments";
import type { McpTool } from "./tool-definition";
import { MCP_TOOLS } from "./tool-registry";

export const MCP_SERVER_INFO = { name: "ai-platform-control-plane", version: "1.0.0" } as const;

/** The HTTP request an MCP server answers, when there is one (tests link a client in memory). */
export interface McpCallOrigin {
	requestId?: string;
}

type Outcome = "success" | "failure" | "denied";

/**
 * One MCP server for one authenticated request (stateless Streamable HTTP): every tool runs its use
 * case with this caller's context. The SDK lists the tools (with their JSON Schemas); tools/call is
 * answered here (answerToolCall), so that every call, whatever becomes of it, goes through the same
 * steps: look the tool up, refuse text PostgreSQL cannot store and arguments that fail the tool's
 * schema, run, answer failures as tool errors (`isError`) a model can act on, audit.
 */
export function createMcpServer(context: UseCaseContext, origin: McpCallOrigin = {}, tools: readonly McpTool[] = MCP_TOOLS): McpServer {
	const server = new McpServer(MCP_SERVER_INFO, {
		instructions:
			"Control plane of an AI application platform: assistants, deployments, knowledge, traces and administration. Call whoami first; tools act on a workspaceId (list_workspaces) and, for an all-organizations connection, an organizationId (list_organizations).",
	});
	for (const tool of tools) {
		server.registerTool(
			tool.name,
			{ title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
			() => {
				throw new Error("tools/call is answered by answerToolCall");
			},
		);
	}
	const catalog: ToolCatalog = {
		byName: new Map(tools.map((tool) => [tool.name, tool])),
		// Any tool's secret argument names are redacted from every call: a misspelt tool name or an argument given to the wrong tool still hides the key.
		secretArguments: [...new Set(tools.flatMap((tool) => tool.secretArguments ?? []))],
	};
	// Replaces the SDK's handler, which validates arguments first, answers refusals in its own words and audits nothing.
	server.server.setRequestHandler(CallToolRequestSchema, (call) => answerToolCall(context, origin, catalog, call));
	return server;
}

interface ToolCatalog {
	byName: ReadonlyMap<string, McpTool>;
	secretArguments: readonly string[];
}

async function answerToolCall(context: UseCaseContext, origin: McpCallOrigin, catalog: ToolCatalog, call: CallToolRequest): Promise<CallToolResult> {
	const started = performance.now();
	const name = call.params.name;
	const args = call.params.arguments ?? {};
	const tool = catalog.byName.get(name);
	let result: CallToolResult;
	let outcome: Outcome;
	let failure: { code: string; message: string } | undefined;
	try {
		if (!tool) throw new AppError("NOT_FOUND", `There is no tool named '${auditedToolName(name)}'; tools/list names them all`);
		const output = await tool.run(context, parseArguments(tool, args));
		checkOutput(tool, output);
		result = { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
		outcome = "success";
	} catch (error) {
		const appError = error instanceof AppError ? error : null;
		if (!appError) context.services.logger.error("MCP tool failed", { requestId: origin.requestId, tool: tool?.name, error });
		const code = appError?.code ?? "INTERNAL_ERROR";
		// Never an unexpected error's own text: it may quote SQL, a stack or another tenant's data.
		const message = appError
			? describeForModel(appError)
			: `The tool failed unexpectedly; try again${origin.requestId ? `, and quote request id ${origin.requestId} if it keeps failing` : ""}`;
		failure = { code, message };
		outcome = code === "FORBIDDEN" ? "denied" : "failure";
		result = { isError: true, content: [{ type: "text", text: `${code}: ${message}` }] };
	}
	const durationMs = performance.now() - started;
	// Only catalog names become labels: a caller can send any name.
	context.services.observability.metrics.recordMcpToolCall(tool ? tool.name : "unknown", outcome, durationMs / 1000);
	await auditToolCall(context, origin, { name, args, secretArguments: catalog.secretArguments, outcome, failure, durationMs });
	return result;
}

/**
 * Array items and object members a tool's arguments may hold in all. The largest legitimate ones
 * (a case of 200 messages, a draft with 100 variables) hold well under a thousand; the bound keeps
 * validation short whatever is sent: a value failing a union costs zod tens of microseconds.
 */
const MAX_ARGUMENT_VALUES = 2_000;
/** A refusal names this many fields at most: enough for a model to fix its arguments, never a flood. */
const MAX_FIELDS_DESCRIBED = 20;

/**
 * The tool's input, or VALIDATION_ERROR naming every offending field: text PostgreSQL cannot store
 * (the same guard as the HTTP API's, before the schema) and what fails the tool's schema, so the
 * model can fix its arguments. Nothing has run yet.
 */
function parseArguments(tool: McpTool, args: Record<string, unknown>): Record<string, unknown> {
	if (exceedsValues(args, MAX_ARGUMENT_VALUES)) {
		throw AppError.validation([{ field: "arguments", issue: `More than ${MAX_ARGUMENT_VALUES} values (array items and object members) in all` }], `Invalid arguments for ${tool.name}`);
	}
	const fields = unstorableTextFields(args, "arguments");
	const parsed = z.object(tool.inputSchema).safeParse(args);
	if (!parsed.success) fields.push(...zodErrorToFields(parsed.error, "arguments"));
	if (fields.length > 0 || !parsed.success) throw AppError.validation(fields, `Invalid arguments for ${tool.name}`);
	return parsed.data;
}

/** Whether `value` holds more than `max` array items and object members, counted with a stack of its own and stopping at `max`. */
function exceedsValues(value: unknown, max: number): boolean {
	let count = 0;
	const pending: unknown[] = [value];
	for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
		if (typeof current !== "object" || current === null) continue;
		// for…in, not Object.values: nothing is copied, and counting stops at `max`.
		for (const key in current) {
			if (++count > max) return true;
			const item = (current as Record<string, unknown>)[key];
			if (typeof item === "object" && item !== null) pending.push(item);
		}
	}
	return false;
}

/** A tool answering outside its own output schema is our bug: logged, and answered as INTERNAL_ERROR. */
function checkOutput(tool: McpTool, output: Record<string, unknown>): void {
	const checked = z.object(tool.outputSchema).safeParse(output);
	if (!checked.success) throw new Error(`${tool.name} answered outside its output schema: ${checked.error.message}`);
}

/**
 * Every tools/call leaves a row, refused ones included, filed under the workspace and organization
 * the call reached (resolveAuditScope: never an organization only named by the caller). The row
 * must not fail the answer it describes: a failure to write it is logged.
 */
async function auditToolCall(
	context: UseCaseContext,
	origin: McpCallOrigin,
	call: { name: string; args: Record<string, unknown>; secretArguments: readonly string[]; outcome: Outcome; failure?: { code: string; message: string }; durationMs: number },
): Promise<void> {
	const { logger } = context.services;
	const tool = auditedToolName(call.name);
	try {
		const scope = await resolveAuditScope(context, { workspaceId: call.args.workspaceId, organizationId: call.args.organizationId });
		await recordAuditEvent(context, {
			action: `mcp.${tool}`,
			outcome: call.outcome,
			workspaceId: scope.workspaceId,
			organizationId: scope.organizationId,
			details: {
				...callerDetails(context),
				...(origin.requestId ? { requestId: origin.requestId } : {}),
				tool,
				arguments: auditedArguments(call.args, call.secretArguments),
				durationMs: Math.round(call.durationMs),
				...(call.failure ? { error: call.failure } : {}),
			},
		});
	} catch (error) {
		logger.error("MCP tool call not audited", { requestId: origin.requestId, tool, error });
	}
}

function callerDetails(context: UseCaseContext): Record<string, unknown> {
	const { principal } = context;
	return principal.kind === "user" ? { userId: principal.userId, clientId: principal.clientId, connectionId: principal.connectionId } : {};
}

/** The message, plus each offending field: enough for a model to fix its arguments. */
function describeForModel(error: AppError): string {
	if (!error.fields?.length) return error.message;
	const described = error.fields.slice(0, MAX_FIELDS_DESCRIBED).map((field) => `${field.field}: ${field.issue}`);
	const more = error.fields.length - described.length;
	return `${error.message}: ${described.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}
