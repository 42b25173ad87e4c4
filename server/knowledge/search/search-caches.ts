import type { DatabaseNotifications } from "../../db/notifications";
import { IndexBuilderPool } from "../index/index-builder-pool";
import { DEFAULT_LEXICON_FILE_SETTINGS, LexicalIndexCache } from "../index/lexical-index";
import { SearchMemoryBudget } from "../index/search-memory-budget";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../options";
import { DEFAULT_VECTOR_INDEX_SETTINGS, VectorCache, type VectorIndexSettings } from "../index/vector-cache";
import { SearchWarmUp } from "./search-warm-up";

/** The per-source in-memory structures search ranks with, one set per process (a platform service). */
export interface KnowledgeSearchCaches {
	readonly lexical: LexicalIndexCache;
	readonly vectors: VectorCache;
	/** The threads both are built on (each with a connection to `databaseUrl` while it builds). */
	readonly builders: IndexBuilderPool;
	/** What both hold, against KNOWLEDGE_SEARCH_MEMORY_MB; least recently searched sources leave first. */
	readonly budget: SearchMemoryBudget;
	/** Warms search's code after the first search of a large source (search-warm-up.ts). */
	readonly warmUp: SearchWarmUp;
	close(): Promise<void>;
}

export function createKnowledgeSearchCaches(
	notifications: DatabaseNotifications,
	databaseUrl: string,
	memoryBytes: number,
	files: { directory?: string; vectorIndexMinChunks?: number; lexiconFileMinChunks?: number; searchWarmUpMinChunks?: number; vectorColumnCacheBytes?: number } = {},
): KnowledgeSearchCaches {
	const vectorIndex: VectorIndexSettings = { ...DEFAULT_VECTOR_INDEX_SETTINGS, directory: files.directory, minChunks: files.vectorIndexMinChunks ?? DEFAULT_VECTOR_INDEX_SETTINGS.minChunks };
	const lexiconFiles = { ...DEFAULT_LEXICON_FILE_SETTINGS, directory: files.directory, minChunks: files.lexiconFileMinChunks ?? DEFAULT_LEXICON_FILE_SETTINGS.minChunks };
	const builders = new IndexBuilderPool(databaseUrl, undefined, files.vectorColumnCacheBytes ?? DEFAULT_KNOWLEDGE_OPTIONS.vectorColumnCacheBytes);
	const budget = new SearchMemoryBudget(memoryBytes);
	return {
		lexical: new LexicalIndexCache(notifications, builders, budget, "lexical:", lexiconFiles),
		vectors: new VectorCache(notifications, builders, budget, "vectors:", vectorIndex),
		builders,
		budget,
		warmUp: new SearchWarmUp(files.searchWarmUpMinChunks ?? DEFAULT_KNOWLEDGE_OPTIONS.searchWarmUpMinChunks),
		close: () => builders.close(),
	};
}
