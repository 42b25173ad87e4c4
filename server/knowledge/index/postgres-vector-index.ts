import type { EntityManager } from "@mikro-orm/postgresql";
import type { VectorCache } from "./vector-cache";
import { encodeVector } from "./vector-encoding";
import type { IndexedVector, VectorIndex, VectorMatch } from "./vector-index";
import { KNOWLEDGE_CHUNKS_CHANNEL } from "./vector-notifications";

/**
 * The default index: Float32 bytea in knowledge_chunks.embedding (no pgvector here), ranked by the
 * in-process VectorCache. Ingestion writes vectors with the chunk rows (storesVectorsInChunkRows),
 * because a separate UPDATE would rewrite every row and recompute its stored tsvector; upsert and
 * the deletes exist for callers outside ingestion and notify other instances to drop their cache.
 */
export class PostgresVectorIndex implements VectorIndex {
	readonly name = "postgres";
	readonly storesVectorsInChunkRows = true;

	constructor(
		private readonly em: EntityManager,
		private readonly cache: VectorCache,
	) {}

	async upsert(sourceId: string, vectors: IndexedVector[]): Promise<void> {
		if (vectors.length === 0) return;
		await this.em.getConnection().execute(
			`update knowledge_chunks c set embedding = v.embedding
			 from unnest(?::text[], ?::bytea[]) as v(id, embedding) where c.id = v.id and c.source_id = ?`,
			[vectors.map((vector) => vector.chunkId), vectors.map((vector) => encodeVector(vector.values)), sourceId],
		);
		await this.notify(sourceId);
	}

	query(sourceId: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
		return this.cache.nearest(this.em, sourceId, vector, topK);
	}

	async deleteChunks(sourceId: string, chunkIds: string[]): Promise<void> {
		if (chunkIds.length === 0) return;
		await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ? and id in (?)", [sourceId, chunkIds]);
		await this.notify(sourceId);
	}

	async deleteDocument(sourceId: string, documentId: string): Promise<void> {
		await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ? and document_id = ?", [sourceId, documentId]);
		await this.notify(sourceId);
	}

	async deleteSource(sourceId: string): Promise<void> {
		await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ?", [sourceId]);
		await this.notify(sourceId);
	}

	private async notify(sourceId: string): Promise<void> {
		await this.em.getConnection().execute("select pg_notify(?, ?)", [KNOWLEDGE_CHUNKS_CHANNEL.name, sourceId]);
	}
}
