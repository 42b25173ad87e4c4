import type { EgressFetch } from "../egress/egress-fetch";
import type { ToolDefinition } from "../providers/types";

/**
 * What every tool kind (knowledge_search, http, mcp) provides: from a version's tool configuration,
 * one or more tools the model is offered (an MCP server's allowed tools are several), each run with
 * arguments already checked against its schema. A run resolves with what the model gets back; a
 * failure is thrown as a ToolFailure (or anything else), which the loop turns into an error result.
 */
export interface RunnableTool {
	definition: ToolDefinition;
	run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** What tool kinds need from the platform, for one generation. */
export interface ToolEnvironment {
	workspaceId: string;
	/** Decrypted workspace secrets the tools' headers reference, by name; for this generation only. */
	secrets: ReadonlyMap<string, string>;
	/** Through the egress policy: every address a tenant's tool aims is checked after resolution, redirects included. */
	fetch: EgressFetch;
	/** Searches the workspace's knowledge (the assistants' retrieval), as text for the model. */
	searchKnowledge(request: { query: string; sourceIds: string[]; topK: number; minScore?: number }, signal: AbortSignal): Promise<string>;
	/** The MCP servers' tool lists, cached with a lifetime (mcp-tool.ts). */
	mcpToolLists: McpToolListCache;
}

export interface McpToolListCache {
	get<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** A tool call that failed in a way the model can act on: its message goes back as the result. */
export class ToolFailure extends Error {
	override readonly name = "ToolFailure";
}
