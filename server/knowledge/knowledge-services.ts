import type { Egress } from "../egress/egress";
import type { JobQueue } from "../jobs/job-queue";
import type { SecretBox } from "../shared/crypto";
import type { VectorIndexes } from "./index/vector-indexes";
import type { KnowledgeOptions } from "./options";
import type { ParserPool } from "./parse/parser-pool";
import type { KnowledgeSearchCaches } from "./search/search-caches";
import type { ObjectStorage } from "./storage/object-storage";

/**
 * What knowledge's mechanisms (ingestion, search) need from the platform: the part of
 * PlatformServices (server/modules/platform-services.ts) they may see.
 */
export interface KnowledgeServices {
	readonly storage: ObjectStorage;
	readonly jobs: JobQueue;
	readonly secrets: SecretBox;
	/** Provider embeddings go out through it: the credential's base URL is the workspace's choice. */
	readonly egress: Egress;
	readonly settings: { readonly knowledge: KnowledgeOptions };
	/** Each source's vector index (PostgreSQL or Pinecone, by its vectorStore). */
	readonly vectorIndexes: VectorIndexes;
	readonly search: KnowledgeSearchCaches;
	/** Parser processes: documents are parsed and chunked there, never on this process's event loop. */
	readonly parsers: ParserPool;
}
