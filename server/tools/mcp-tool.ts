import { createHash } from "node:crypto";
import { type McpTool, TOOL_DEFAULTS } from "../../contract/inputs/assistant-tools";
import { findEgressRefusal } from "../egress/egress-refused-error";
import { resolveHeaders } from "./http-tool";
import { type RunnableTool, type ToolEnvironment, ToolFailure } from "./tool-kind";

/** What the model gets of an MCP result at most: the text parts, cut past this. */
const MAX_RESULT_CHARACTERS = 32_000;

interface ListedTool {
	name: string;
	description?: string;
	inputSchema: Record<string, unknown>;
}

/** A client connected to the server over Streamable HTTP, through the egress policy; closed by the caller. */
async function connect(tool: McpTool, headers: Record<string, string>, environment: ToolEnvironment, signal: AbortSignal) {
	// Loaded on first use: the SDK's client is not needed by a process that never calls an MCP tool.
	const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), import("@modelcontextprotocol/sdk/client/streamableHttp.js")]);
	const transport = new StreamableHTTPClientTransport(new URL(tool.url), { requestInit: { headers }, fetch: environment.fetch });
	const client = new Client({ name: "ai-platform-tools", version: "1.0.0" });
	try {
		await client.connect(transport, { signal });
	} catch (error) {
		await client.close().catch(() => {});
		throw explain(error, signal);
	}
	return client;
}

function explain(error: unknown, signal: AbortSignal): unknown {
	if (signal.aborted) return error;
	const refusal = findEgressRefusal(error);
	if (refusal) return new ToolFailure(`Refused by the egress policy: ${refusal.message}`);
	if (error instanceof ToolFailure) return error;
	return new ToolFailure(`The MCP server failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * A remote MCP server's allowed tools, each offered as `<name>_<tool>` with the server's own
 * description and input schema. The server's tool list is read on first use and cached with a
 * lifetime, per server and credentials; a tool outside the allow-list is never offered, and one
 * the server does not list is left out. Each call opens a session, calls, and closes it.
 */
export async function prepareMcpTools(tool: McpTool, environment: ToolEnvironment): Promise<RunnableTool[]> {
	let headers: Record<string, string>;
	try {
		headers = resolveHeaders(tool.headers, environment.secrets);
	} catch {
		headers = {};
	}
	const key = createHash("sha256").update(JSON.stringify([environment.workspaceId, tool.url, headers])).digest("base64url");
	let listed: ListedTool[];
	try {
		listed = await environment.mcpToolLists.get(key, async () => {
			const signal = AbortSignal.timeout(TOOL_DEFAULTS.httpTimeoutMs);
			const client = await connect(tool, resolveHeaders(tool.headers, environment.secrets), environment, signal);
			try {
				return (await client.listTools(undefined, { signal })).tools as ListedTool[];
			} finally {
				await client.close().catch(() => {});
			}
		});
	} catch {
		// An unreachable server offers nothing this time; the loop runs without its tools.
		return [];
	}
	const allowed = new Set(tool.allowedTools);
	return listed
		.filter((remote) => allowed.has(remote.name))
		.map((remote) => ({
			definition: {
				name: `${tool.name}_${remote.name}`,
				description: [tool.description, remote.description].filter(Boolean).join(" — "),
				parameters: remote.inputSchema ?? { type: "object", properties: {} },
			},
			async run(args, signal) {
				const timeout = AbortSignal.timeout(TOOL_DEFAULTS.httpTimeoutMs * 3);
				const combined = AbortSignal.any([signal, timeout]);
				const client = await connect(tool, resolveHeaders(tool.headers, environment.secrets), environment, combined);
				try {
					const result = (await client.callTool({ name: remote.name, arguments: args }, undefined, { signal: combined })) as {
						content?: { type: string; text?: string }[];
						structuredContent?: unknown;
						isError?: boolean;
					};
					const text = (result.content ?? []).map((part) => (part.type === "text" ? (part.text ?? "") : `[${part.type} content]`)).join("\n");
					const body = text || (result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent));
					const cut = body.length > MAX_RESULT_CHARACTERS ? `${body.slice(0, MAX_RESULT_CHARACTERS)}\n[cut: the result was longer than ${MAX_RESULT_CHARACTERS} characters]` : body;
					if (result.isError) throw new ToolFailure(cut || "The MCP tool reported an error");
					return cut;
				} catch (error) {
					if (timeout.aborted && !signal.aborted) throw new ToolFailure("The MCP server did not answer in time");
					throw explain(error, signal);
				} finally {
					await client.close().catch(() => {});
				}
			},
		}));
}
