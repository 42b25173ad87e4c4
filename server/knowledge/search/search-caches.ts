import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseNotifications } from "../../db/notifications";
import { IndexBuilderPool } from "../index/index-builder-pool";
import { IndexFileUpkeep, UPKEEP_QUIET_MS } from "../index/index-file-upkeep";
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
	/** Brings large sources' index files up to date once an ingestion in this process has ended (index-file-upkeep.ts). */
	readonly upkeep: IndexFileUpkeep;
	close(): Promise<void>;
}

/** One thread, none kept idle: upkeep folds are whole-source tasks, and never take the threads ingestion embeds on. */
const UPKEEP_BUILDER_LIMITS = { threads: 1, threadsPerWorkspace: 1, idleThreads: 0, idleMs: 0 };

/** Whether the index directory holds any source's files of `kind` (read once at start). */
function holdsIndexFiles(directory: string, kind: "lexicon" | "vectors"): boolean {
	try {
		return readdirSync(join(directory, kind)).length > 0;
	} catch {
		return false;
	}
}

export function createKnowledgeSearchCaches(
	notifications: DatabaseNotifications,
	databaseUrl: string,
	memoryBytes: number,
	files: {
		directory?: string;
		vectorIndexMinChunks?: number;
		lexiconFileMinChunks?: number;
		searchWarmUpMinChunks?: number;
		vectorColumnCacheBytes?: number;
		/** Whether a directory holding index files starts the threads that open them at once (a server's restart); default true. */
		startThreadsForFiles?: boolean;
	} = {},
): KnowledgeSearchCaches {
	const vectorIndex: VectorIndexSettings = { ...DEFAULT_VECTOR_INDEX_SETTINGS, directory: files.directory, minChunks: files.vectorIndexMinChunks ?? DEFAULT_VECTOR_INDEX_SETTINGS.minChunks };
	const lexiconFiles = { ...DEFAULT_LEXICON_FILE_SETTINGS, directory: files.directory, minChunks: files.lexiconFileMinChunks ?? DEFAULT_LEXICON_FILE_SETTINGS.minChunks };
	const builders = new IndexBuilderPool(databaseUrl, undefined, files.vectorColumnCacheBytes ?? DEFAULT_KNOWLEDGE_OPTIONS.vectorColumnCacheBytes);
	// Files of large sources mean a restart: their first searches open them, on threads started now
	// rather than when the first search asks (two builders and the graph-search thread, each a tenth
	// of a second or more to start, on the path of that search).
	if (files.directory && files.startThreadsForFiles !== false) {
		if (holdsIndexFiles(files.directory, "lexicon")) builders.prestart();
		if (holdsIndexFiles(files.directory, "vectors")) builders.graphs.start();
	}
	const budget = new SearchMemoryBudget(memoryBytes);
	const upkeep = new IndexFileUpkeep(new IndexBuilderPool(databaseUrl, UPKEEP_BUILDER_LIMITS), {
		directory: files.directory,
		lexiconMinChunks: lexiconFiles.minChunks,
		vectorMinChunks: vectorIndex.minChunks,
		foldChunks: Math.max(lexiconFiles.foldChunks, vectorIndex.foldChunks),
		quietMs: UPKEEP_QUIET_MS,
	});
	return {
		lexical: new LexicalIndexCache(notifications, builders, budget, "lexical:", lexiconFiles),
		vectors: new VectorCache(notifications, builders, budget, "vectors:", vectorIndex),
		builders,
		budget,
		warmUp: new SearchWarmUp(files.searchWarmUpMinChunks ?? DEFAULT_KNOWLEDGE_OPTIONS.searchWarmUpMinChunks),
		upkeep,
		close: async () => {
			await Promise.all([builders.close(), upkeep.close()]);
		},
	};
}
