import type PgBoss from "pg-boss";
import type { SecretBox } from "../shared/crypto";
import type { VectorIndexes } from "./index/vector-indexes";
import type { ObjectStorage } from "./storage/object-storage";
import type { KnowledgeOptions } from "./options";

/** What the knowledge use cases need beyond the EntityManager; built once by the composition root. */
export interface KnowledgeServices {
	storage: ObjectStorage;
	boss: PgBoss;
	secrets: SecretBox;
	options: KnowledgeOptions;
	/** Each source's vector index (PostgreSQL or Pinecone, by its vectorStore). */
	vectorIndexes: VectorIndexes;
	/** Wakes this process's idle ingestion workers after a commit that enqueued (saves a polling interval). */
	wakeWorkers?: () => void;
}
