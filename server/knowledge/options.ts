import type { PineconeOptions } from "./index/pinecone-vector-index";
import { DEFAULT_PARSING_OPTIONS, type ParsingOptions } from "./parse/parser-pool";
import type { S3StorageOptions } from "./storage/s3-storage";

/** Knowledge settings the composition root reads from the environment (see docs/knowledge.md). */
export interface KnowledgeOptions {
	/** `inline`: this process also runs ingestion jobs; `off`: only worker processes do (KNOWLEDGE_WORKER=process starts one beside the server). */
	worker: "inline" | "off";
	/** Ingestion jobs one process runs at a time. */
	workerConcurrency: number;
	/** Default per-workspace storage allowance; workspaces.storage_allowance_bytes overrides it. */
	storageAllowanceBytes: number;
	/** A document PROCESSING longer than this is presumed orphaned by a dead worker and re-queued. */
	processingTimeoutSeconds: number;
	/** How often the orphan sweeper looks. */
	sweepIntervalSeconds: number;
	/** Lifetime of a presigned upload URL. */
	uploadUrlTtlSeconds: number;
	/** How often an idle worker polls pg-boss for jobs (pg-boss's minimum is 0.5). */
	pollIntervalSeconds: number;
	/** Where document bytes live: local disk under DATA_DIR (default) or an S3-compatible bucket. */
	storage: { driver: "local" } | ({ driver: "s3" } & S3StorageOptions);
	/** The vector store of new sources; each source keeps the one it was created with. */
	vectorStore: "postgres" | "pinecone";
	/** Required when any source uses Pinecone. */
	pinecone?: PineconeOptions;
	/** Parser processes and each document's budgets. */
	parsing: ParsingOptions;
	/**
	 * Bytes of search structures (lexicons, vector matrices) one process keeps across all sources;
	 * past it the least recently searched sources leave memory and load again on their next search.
	 */
	searchMemoryBytes: number;
	/**
	 * Bytes of builtin sources' int8 vector columns one process keeps between searches, in 64 KiB
	 * blocks on its graph-search thread (KNOWLEDGE_VECTOR_COLUMN_CACHE_MB; the least recently used
	 * leave first): a search reads its columns there instead of copying them from the page cache. 0: none.
	 */
	vectorColumnCacheBytes: number;
	/**
	 * Where search index files are kept (KNOWLEDGE_INDEX_DIR): a restart opens them instead of
	 * rebuilding from PostgreSQL. Undefined: nothing is written to disk (every load builds).
	 */
	indexDirectory?: string;
	/**
	 * Sources with at least this many vectors are searched through index files (with an index
	 * directory: int8 column runs for builtin vectors, an HNSW graph for a provider's; see
	 * docs/knowledge.md "Search at scale"); smaller ones by the exact scan in memory.
	 */
	vectorIndexMinChunks: number;
	/**
	 * Sources with at least this many chunks keep their lexicon in a file of the index directory,
	 * so a restart reads it instead of rebuilding it from every chunk's tsvector.
	 */
	lexiconFileMinChunks: number;
	/**
	 * After the first search of a source with at least this many chunks (builtin embeddings, vectors
	 * in PostgreSQL), searches of its own words warm search's code in the background, once per process.
	 */
	searchWarmUpMinChunks: number;
}

export const DEFAULT_KNOWLEDGE_OPTIONS: KnowledgeOptions = {
	worker: "inline",
	workerConcurrency: 2,
	storageAllowanceBytes: 1024 ** 3,
	processingTimeoutSeconds: 600,
	sweepIntervalSeconds: 30,
	uploadUrlTtlSeconds: 900,
	pollIntervalSeconds: 0.5,
	storage: { driver: "local" },
	vectorStore: "postgres",
	parsing: DEFAULT_PARSING_OPTIONS,
	searchMemoryBytes: 512 * 1024 ** 2,
	vectorColumnCacheBytes: 256 * 1024 ** 2,
	vectorIndexMinChunks: 20_000,
	lexiconFileMinChunks: 10_000,
	searchWarmUpMinChunks: 20_000,
};
