import type { EntityManager } from "@mikro-orm/postgresql";
import type { VectorCache } from "./vector-cache";
import { encodeVector } from "./vector-encoding";
import type { IndexedVector, VectorIndex, VectorMatch } from "./vector-index";
import { KNOWLEDGE_CHUNKS_CHANNEL, reloadNotification } from "./vector-notifications";

/**
 * The default index: Float32 bytea in knowledge_chunks.embedding (no pgvector here), ranked by the
 * in-process VectorCache. Ingestion writes vectors with the chunk rows (storesVectorsInChunkRows),
 * because a separate UPDATE would rewrite every row and recompute its stored tsvector; upsert and
 * the deletes exist for callers outside ingestion and tell every instance to reload the source's vectors.
 */
export class PostgresVectorIndex implements VectorIndex {
	readonly name = "postgres";
	readonly storesVectorsInChunkRows = true;

	constructor(
		private readonly em: EntityManager,
		private readonly cache: VectorCache,
		/** Whose share of the index-builder threads a load of this source's vectors takes. */
		private readonly workspace: string,
	) {}

	async upsert(sourceId: string, vectors: IndexedVector[]): Promise<void> {
		if (vectors.length === 0) return;
		const changed = await this.em.getConnection().execute(
			`update knowledge_chunks c set embedding = v.embedding
			 from unnest(?::text[], ?::bytea[]) as v(id, embedding) where c.id = v.id and c.source_id = ? returning 1`,
			[vectors.map((vector) => vector.chunkId), vectors.map((vector) => encodeVector(vector.values)), sourceId],
		);
		await this.notify(sourceId, changed.length);
	}

	query(sourceId: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
		return this.cache.nearest(this.em, { id: sourceId, workspace: this.workspace }, vector, topK);
	}

	async deleteChunks(sourceId: string, chunkIds: string[]): Promise<void> {
		if (chunkIds.length === 0) return;
		const changed = await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ? and id in (?) and embedding is not null returning 1", [sourceId, chunkIds]);
		await this.notify(sourceId, changed.length);
	}

	async deleteDocument(sourceId: string, documentId: string): Promise<void> {
		const changed = await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ? and document_id = ? and embedding is not null returning 1", [sourceId, documentId]);
		await this.notify(sourceId, changed.length);
	}

	async deleteSource(sourceId: string): Promise<void> {
		const changed = await this.em.getConnection().execute("update knowledge_chunks set embedding = null where source_id = ? and embedding is not null returning 1", [sourceId]);
		await this.notify(sourceId, changed.length);
		await this.cache.removeIndexFiles(sourceId);
	}

	/**
	 * Vectors rewritten in place leave document versions as they were: caches must reload. Deleting
	 * a document or source cascades to its chunks first, so these deletes usually touch no row and
	 * the use case's own notification (documents changed) lets caches update incrementally.
	 */
	private async notify(sourceId: string, changedRows: number): Promise<void> {
		if (changedRows === 0) return;
		await this.em.getConnection().execute("select pg_notify(?, ?)", [KNOWLEDGE_CHUNKS_CHANNEL.name, reloadNotification(sourceId)]);
	}
}
