import type { EntityManager } from "@mikro-orm/postgresql";
import type { KnowledgeSource } from "../../db/entities";
import { PostgresVectorIndex } from "./postgres-vector-index";
import type { VectorCache } from "./vector-cache";
import type { VectorIndex } from "./vector-index";

/** Picks each source's vector index by its `vectorStore` column; built once per process. */
export class VectorIndexes {
	constructor(
		private readonly cache: VectorCache,
		/** Built by the composition root when PINECONE_* is configured. */
		private readonly pinecone?: VectorIndex,
	) {}

	forSource(em: EntityManager, source: Pick<KnowledgeSource, "id" | "workspace" | "vectorStore">): VectorIndex {
		if (source.vectorStore === "pinecone") {
			// A source keeps its store for life; losing the configuration must fail loudly, not search nothing.
			if (!this.pinecone) throw new Error(`Knowledge source ${source.id} uses Pinecone but PINECONE_API_KEY / PINECONE_INDEX_HOST are not set`);
			return this.pinecone;
		}
		return new PostgresVectorIndex(em, this.cache, source.workspace);
	}
}
