import { earlyQueryLexemes } from "../../knowledge/search/search-knowledge";
import type { TKnowledgeSearchResult } from "../../knowledge/search/types";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { readKnowledgeSource } from "./find-knowledge-records";
import { tracedSearch } from "./traced-search";

/** Hybrid search over one source's READY documents (server/knowledge/search). */
export async function searchKnowledgeSource(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; query: string; topK?: number; minScore?: number },
): Promise<TKnowledgeSearchResult[]> {
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	// The lexemes need no source: asked for while the source is looked up, not after.
	const lexemes = earlyQueryLexemes(context.em, input.query);
	const source = await readKnowledgeSource(context.em, workspaceId, input.sourceId);
	const started = performance.now();
	const results = await tracedSearch(context.em, context.services, source, { query: input.query, topK: input.topK, minScore: input.minScore, lexemes });
	context.services.observability.metrics.recordSearch((performance.now() - started) / 1000);
	return results;
}
