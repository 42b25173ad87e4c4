import { type Index, Pinecone } from "@pinecone-database/pinecone";
import type { IndexedVector, VectorIndex, VectorMatch } from "./vector-index";

export interface PineconeOptions {
	apiKey: string;
	/** The index's data-plane host, e.g. https://my-index-xxxx.svc.pinecone.io (http:// for a local server). */
	indexHost: string;
	/** Control plane; unset means Pinecone's own (https://api.pinecone.io). */
	controllerHost?: string;
}

type ChunkMetadata = { documentId: string };

/** Pinecone's limits: 1000 records or ids per upsert or delete request (and 2 MB per upsert). */
const UPSERT_BATCH = 100;
const DELETE_BATCH = 1000;

/**
 * One Pinecone index for the installation, one namespace per source (a source's deletion is one
 * deleteAll, and a query never sees another source's records). Record ids are chunk ids and the
 * metadata is `{documentId}`, so a document's vectors can be deleted by filter, including the
 * leftovers of an attempt that died between its upsert and its commit.
 */
export class PineconeVectorIndex implements VectorIndex {
	readonly name = "pinecone";
	readonly storesVectorsInChunkRows = false;
	private readonly index: Index<ChunkMetadata>;

	constructor(options: PineconeOptions) {
		const client = new Pinecone({ apiKey: options.apiKey, ...(options.controllerHost ? { controllerHostUrl: options.controllerHost } : {}) });
		// With the host given, the SDK talks to the data plane directly (no describe_index lookup).
		this.index = client.index<ChunkMetadata>({ host: options.indexHost });
	}

	async upsert(sourceId: string, vectors: IndexedVector[]): Promise<void> {
		for (let start = 0; start < vectors.length; start += UPSERT_BATCH) {
			await this.index.upsert({
				namespace: sourceId,
				records: vectors.slice(start, start + UPSERT_BATCH).map((vector) => ({
					id: vector.chunkId,
					values: Array.from(vector.values),
					metadata: { documentId: vector.documentId },
				})),
			});
		}
	}

	async query(sourceId: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
		// Pinecone caps topK at 10000 (1000 with metadata); search asks for far fewer.
		const response = await this.index.query({ namespace: sourceId, vector: Array.from(vector), topK: Math.min(topK, 1000), includeMetadata: false });
		return response.matches.map((match) => ({ chunkId: match.id, similarity: match.score ?? 0 }));
	}

	async deleteChunks(sourceId: string, chunkIds: string[]): Promise<void> {
		for (let start = 0; start < chunkIds.length; start += DELETE_BATCH) {
			await this.index.deleteMany({ namespace: sourceId, ids: chunkIds.slice(start, start + DELETE_BATCH) });
		}
	}

	async deleteDocument(sourceId: string, documentId: string): Promise<void> {
		await this.index.deleteMany({ namespace: sourceId, filter: { documentId: { $eq: documentId } } });
	}

	async deleteSource(sourceId: string): Promise<void> {
		await this.index.deleteAll({ namespace: sourceId });
	}
}
