import { type AssistantTool, MAX_TOOL_STEPS, SECRET_REFERENCE, TOOL_DEFAULTS } from "../../../contract/inputs/assistant-tools";
import type { AssistantConfig } from "../../db/entities";
import { Toolbox } from "../../tools/toolbox";
import type { UseCaseContext } from "../platform-services";
import { readSecrets } from "../workspace-secrets/read-secrets";
import { formatKnowledgeContext, retrieveKnowledge } from "./retrieve-knowledge-context";

/** A version's tools, ready for its generation, and its step budget. */
export interface PreparedTools {
	toolbox: Toolbox;
	maxToolSteps: number;
}

function referencedSecrets(tools: AssistantTool[]): string[] {
	const names = new Set<string>();
	for (const tool of tools) {
		if (tool.type === "knowledge_search") continue;
		for (const value of Object.values(tool.headers ?? {})) for (const match of value.matchAll(SECRET_REFERENCE)) names.add(match[1]!);
	}
	return [...names];
}

/**
 * The tools of a version (or draft) for one generation: the secrets their headers name, decrypted
 * for this generation only; knowledge search over the workspace's sources (the same retrieval as
 * attached knowledge, fenced as untrusted reference material); http and mcp calls through the
 * egress policy. Undefined when the configuration has no tools.
 */
export async function prepareAssistantTools(context: UseCaseContext, workspaceId: string, config: AssistantConfig): Promise<PreparedTools | undefined> {
	const tools = config.tools ?? [];
	if (tools.length === 0) return undefined;
	const { services } = context;
	const secrets = await readSecrets(context.em, services.secrets, workspaceId, referencedSecrets(tools));
	const toolbox = await Toolbox.prepare(tools, {
		workspaceId,
		secrets,
		fetch: services.egress.fetch,
		mcpToolLists: services.toolLists,
		searchKnowledge: async (request) => {
			const chunks = await retrieveKnowledge(
				{ ...context, em: context.em.fork() },
				{ workspaceId, query: request.query, knowledge: request.sourceIds.map((sourceId) => ({ sourceId, topK: request.topK, minScore: request.minScore })) },
			);
			return chunks.length === 0 ? "No matching passages were found." : formatKnowledgeContext(chunks);
		},
	});
	return { toolbox, maxToolSteps: Math.min(config.generation.maxToolSteps ?? TOOL_DEFAULTS.maxToolSteps, MAX_TOOL_STEPS) };
}
