import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { recordAuditEvent } from "../modules/audit/record-audit-event";
import type { UseCaseContext } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { auditedArguments } from "./audited-arguments";
import type { McpTool } from "./tool-definition";
import { MCP_TOOLS } from "./tool-registry";

export const MCP_SERVER_INFO = { name: "ai-platform-control-plane", version: "1.0.0" } as const;

/**
 * One MCP server for one authenticated request (stateless Streamable HTTP): every tool runs its use
 * case with this caller's context. Tool failures are tool errors (`isError`), so the model reads the
 * message and can correct itself; every call, allowed or denied, is audited.
 */
export function createMcpServer(context: UseCaseContext, tools: readonly McpTool[] = MCP_TOOLS): McpServer {
	const server = new McpServer(MCP_SERVER_INFO, {
		instructions:
			"Control plane of an AI application platform: assistants, deployments, knowledge, traces and administration. Call whoami first; tools act on a workspaceId (list_workspaces) and, for an all-organizations connection, an organizationId (list_organizations).",
	});
	for (const tool of tools) {
		server.registerTool(
			tool.name,
			{ title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
			async (input: Record<string, unknown>) => callTool(context, tool, input),
		);
	}
	return server;
}

async function callTool(context: UseCaseContext, tool: McpTool, input: Record<string, unknown>): Promise<CallToolResult> {
	const started = performance.now();
	let result: CallToolResult;
	let outcome: "success" | "failure" | "denied";
	let failure: { code: string; message: string } | undefined;
	try {
		const output = await tool.run(context, input);
		result = { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
		outcome = "success";
	} catch (error) {
		const appError = error instanceof AppError ? error : null;
		if (!appError) context.services.logger.error("MCP tool failed", { tool: tool.name, error });
		const code = appError?.code ?? "INTERNAL_ERROR";
		const message = appError ? describeForModel(appError) : "The tool failed unexpectedly; try again later";
		failure = { code, message };
		outcome = code === "FORBIDDEN" ? "denied" : "failure";
		result = { isError: true, content: [{ type: "text", text: `${code}: ${message}` }] };
	}
	await recordAuditEvent(context, {
		action: `mcp.${tool.name}`,
		outcome,
		workspaceId: typeof input.workspaceId === "string" ? input.workspaceId : null,
		organizationId: typeof input.organizationId === "string" ? input.organizationId : null,
		details: {
			...callerDetails(context),
			tool: tool.name,
			arguments: auditedArguments(input, tool.secretArguments ?? []),
			durationMs: Math.round(performance.now() - started),
			...(failure ? { error: failure } : {}),
		},
	});
	return result;
}

function callerDetails(context: UseCaseContext): Record<string, unknown> {
	const { principal } = context;
	return principal.kind === "user" ? { userId: principal.userId, clientId: principal.clientId, connectionId: principal.connectionId } : {};
}

/** The message, plus each offending field: enough for a model to fix its arguments. */
function describeForModel(error: AppError): string {
	if (!error.fields?.length) return error.message;
	return `${error.message}: ${error.fields.map((field) => `${field.field}: ${field.issue}`).join("; ")}`;
}
