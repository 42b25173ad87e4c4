import type { EntityManager } from "@mikro-orm/postgresql";
import type { KnowledgeSource } from "../../db/entities";
import { DEFAULT_SEARCH_TOP_K, searchKnowledge, type SearchInput } from "../../knowledge/search/search-knowledge";
import type { TKnowledgeSearchResult } from "../../knowledge/search/types";
import type { PlatformServices } from "../platform-services";

/**
 * One source's search, in a span of its own when tracing is on (its source, topK and result count,
 * never the query): the search endpoint, attached knowledge and the knowledge_search tool all search
 * through here.
 */
export function tracedSearch(em: EntityManager, services: PlatformServices, source: KnowledgeSource, input: SearchInput): Promise<TKnowledgeSearchResult[]> {
	const { tracing } = services.observability;
	const search = () => searchKnowledge(em, services, source, input);
	return tracing ? tracing.runSearch({ sourceId: source.id, topK: input.topK ?? DEFAULT_SEARCH_TOP_K }, search) : search();
}
