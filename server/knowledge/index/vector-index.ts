/** One chunk's vector as an index stores it: the chunk id is the record id. */
export interface IndexedVector {
	chunkId: string;
	documentId: string;
	values: Float32Array;
}

export interface VectorMatch {
	chunkId: string;
	/** Cosine similarity (vectors are L2-normalised). */
	similarity: number;
}

/**
 * Where a source's vectors live and are ranked, behind one interface so the PostgreSQL default
 * (bytea column + in-process matrix) and a hosted index (Pinecone) are interchangeable per source.
 * Every method is idempotent: upserting the same chunk id replaces it, deleting nothing succeeds.
 */
export interface VectorIndex {
	readonly name: "postgres" | "pinecone";
	/**
	 * True when the vectors are columns of the knowledge_chunks rows: ingestion then writes them
	 * with the rows, in the transaction that sets READY, instead of calling upsert.
	 */
	readonly storesVectorsInChunkRows: boolean;
	upsert(sourceId: string, vectors: IndexedVector[]): Promise<void>;
	query(sourceId: string, vector: Float32Array, topK: number): Promise<VectorMatch[]>;
	/** Removes the given chunk ids (the leftovers of an ingestion attempt that lost its race). */
	deleteChunks(sourceId: string, chunkIds: string[]): Promise<void>;
	deleteDocument(sourceId: string, documentId: string): Promise<void>;
	deleteSource(sourceId: string): Promise<void>;
}
