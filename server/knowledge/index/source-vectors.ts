import { closeSync, openSync, readSync } from "node:fs";
import type { Index } from "usearch";
import type { CachedSource, DocumentVersions } from "./source-chunk-cache";
import { inSlices, PackedStringTable, unpackStrings } from "./thread-transfer";
import { SourceMatrix } from "./vector-cache";
import { graphPath, HNSW_CANDIDATES, HNSW_RESCORED, hnswIndex, segmentPath, type VectorIndexTransfer } from "./vector-index-files";

/**
 * One generation of a source's HNSW index (vector-index-files.ts), opened on the API's thread: the
 * graph memory-mapped (`view`: opening is milliseconds and nothing is copied; it is immutable), the
 * float32 vectors read back for the candidates only. Chunks of documents removed since the
 * generation was built are dead keys: skipped, and asked for in excess so they never crowd out
 * live ones (removal stays exact). The graph's best candidates by its int8 similarity are
 * rescored exactly from the float32 vectors (a read of each from the page cache).
 */
export class ApproximateIndex {
	private readonly index: Index;
	private readonly dead: Uint8Array;
	private deadCount = 0;
	private readonly row: Float32Array;
	private readonly rowBytes: Uint8Array;

	/** Decoded only for the hits a search returns. */
	private readonly chunkIds: PackedStringTable;

	private constructor(
		readonly generation: VectorIndexTransfer,
		readonly keysOfDocument: Map<string, number[]>,
		readonly versions: DocumentVersions,
	) {
		this.index = hnswIndex(generation.dimensions);
		this.chunkIds = new PackedStringTable(generation.chunkIds, generation.chunkIdStarts);
		this.index.view(graphPath(generation.directory, generation.name));
		this.dead = new Uint8Array(generation.count);
		for (let key = 0; key < generation.count; key++) if (generation.documentOfKey[key] < 0) this.dead[key] = 1;
		this.row = new Float32Array(generation.dimensions);
		this.rowBytes = new Uint8Array(this.row.buffer);
	}

	static async fromTransfer(generation: VectorIndexTransfer): Promise<ApproximateIndex> {
		const documentIds = unpackStrings(generation.documentIds);
		const documentVersions = unpackStrings(generation.versions);
		const versions: DocumentVersions = new Map();
		await inSlices(documentIds.length, (index) => versions.set(documentIds[index], documentVersions[index]));
		const keysOfDocument = new Map<string, number[]>();
		await inSlices(generation.count, (key) => {
			const document = generation.documentOfKey[key];
			if (document < 0) return;
			const keys = keysOfDocument.get(documentIds[document]);
			if (keys) keys.push(key);
			else keysOfDocument.set(documentIds[document], [key]);
		});
		return new ApproximateIndex(generation, keysOfDocument, versions);
	}

	get dimensions(): number {
		return this.generation.dimensions;
	}

	/** Keys dead since the generation was built (removed documents): what a fold would drop. */
	get removedSinceBuilt(): number {
		return this.deadCount;
	}

	get size(): number {
		return this.index.size() - this.deadCount;
	}

	/** The mapped graph (searches bring its pages into memory) and the per-key bookkeeping. */
	memoryBytes(): number {
		return this.generation.graphBytes + this.generation.count * 64;
	}

	/** Whether the document's chunks are in the graph; they become dead keys. */
	removeDocument(documentId: string): boolean {
		const keys = this.keysOfDocument.get(documentId);
		if (!keys) return false;
		for (const key of keys) {
			if (this.dead[key]) continue;
			this.dead[key] = 1;
			this.deadCount++;
		}
		this.keysOfDocument.delete(documentId);
		return true;
	}

	nearest(query: Float32Array, limit: number): { chunkId: string; similarity: number }[] {
		if (query.length !== this.dimensions || this.size === 0) return [];
		const wanted = Math.min(this.index.size(), Math.max(HNSW_CANDIDATES, limit + this.deadCount));
		const { keys } = this.index.search(query, wanted, 1);
		const used: number[] = [];
		for (let dimension = 0; dimension < query.length; dimension++) if (query[dimension] !== 0) used.push(dimension);
		const hits: { key: number; similarity: number }[] = [];
		const rescored = Math.max(HNSW_RESCORED, limit);
		// Opened per search (microseconds), so nothing outlives this index but the mapped graph.
		const descriptors = new Map<number, number>();
		try {
			for (const bigKey of keys) {
				const key = Number(bigKey);
				if (this.dead[key]) continue;
				hits.push({ key, similarity: this.exactSimilarity(key, query, used, descriptors) });
				if (hits.length === rescored) break;
			}
		} finally {
			for (const descriptor of descriptors.values()) closeSync(descriptor);
		}
		// Only the returned hits' ids are decoded.
		return hits
			.sort((a, b) => b.similarity - a.similarity)
			.slice(0, limit)
			.map(({ key, similarity }) => ({ chunkId: this.chunkId(key), similarity }));
	}

	private chunkId(key: number): string {
		return this.chunkIds.at(key);
	}

	private exactSimilarity(key: number, query: Float32Array, used: number[], descriptors: Map<number, number>): number {
		const { segments, directory } = this.generation;
		let segment = segments.length - 1;
		while (segment > 0 && segments[segment].from > key) segment--;
		let descriptor = descriptors.get(segment);
		if (descriptor === undefined) {
			descriptor = openSync(segmentPath(directory, segments[segment].file), "r");
			descriptors.set(segment, descriptor);
		}
		readSync(descriptor, this.rowBytes, 0, this.rowBytes.length, (key - segments[segment].from) * this.rowBytes.length);
		let similarity = 0;
		for (const dimension of used) similarity += query[dimension] * this.row[dimension];
		return similarity;
	}
}

/**
 * A source's vectors as search ranks them: small sources (and large ones until their HNSW index
 * is built) in an exact matrix; large ones in an ApproximateIndex plus an exact "tail" matrix of
 * the documents ingested since its generation was built, searched side by side. Removing a
 * document is exact in both. When the tail and the dead keys grow past a bound, a builder thread
 * folds them into a new generation (VectorCache), which `adopt` swaps in.
 */
export class SourceVectors implements CachedSource {
	readonly versions: DocumentVersions = new Map();
	/** Opened from a file written before: compared with the database before its first search. */
	restored = false;
	/** A build or fold of this source's index is under way. */
	indexing = false;
	/** Bumped when a new generation is adopted: changes computed against the old one are not applied. */
	epoch = 0;

	constructor(
		public tail: SourceMatrix,
		public approximate: ApproximateIndex | null = null,
	) {
		if (approximate) for (const [documentId, version] of approximate.versions) this.versions.set(documentId, version);
		for (const [documentId, version] of tail.versions) this.versions.set(documentId, version);
	}

	get size(): number {
		return this.tail.size + (this.approximate?.size ?? 0);
	}

	get dimensions(): number {
		return this.approximate?.dimensions ?? this.tail.dimensions;
	}

	/** Chunks searched exactly beside the graph, and chunks dead in it: a fold's worth of work. */
	get pendingFold(): number {
		return this.approximate ? this.tail.size + this.approximate.removedSinceBuilt : 0;
	}

	memoryBytes(): number {
		return this.tail.memoryBytes() + (this.approximate?.memoryBytes() ?? 0);
	}

	nearest(query: Float32Array, limit: number): { chunkId: string; similarity: number }[] {
		if (!this.approximate) return this.tail.nearest(query, limit);
		const hits = [...this.approximate.nearest(query, limit), ...this.tail.nearest(query, limit)];
		return hits.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
	}

	/** nearest's result for a search: a large exact matrix (no graph yet) is scanned in slices that leave the event loop free between them. */
	async search(query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		return this.approximate ? this.nearest(query, limit) : this.tail.nearestInSlices(query, limit);
	}

	/** Removes `removedDocuments` (from the graph or the tail), then adds `delta`'s chunks to the tail. */
	absorb(removedDocuments: string[], delta: SourceMatrix | null): void {
		for (const documentId of removedDocuments) {
			this.approximate?.removeDocument(documentId);
			this.versions.delete(documentId);
		}
		this.tail.absorb(removedDocuments, delta);
		if (delta) for (const [documentId, version] of delta.versions) this.versions.set(documentId, version);
	}

	/**
	 * Takes a new generation (holding what the database held at its build's snapshot) in place of
	 * the old one and the tail; the caller marks the source stale, so the next search brings it up to
	 * date from the database by document versions.
	 */
	adopt(approximate: ApproximateIndex): void {
		this.approximate = approximate;
		// What the tail held is in the generation or read again by the next search (the caller marks the source
		// stale), so its memory goes back now: the 2 GB exact matrix of a million chunks before their first graph.
		this.tail.release();
		this.tail = new SourceMatrix();
		this.tail.dimensions = approximate.dimensions;
		this.versions.clear();
		for (const [documentId, version] of approximate.versions) this.versions.set(documentId, version);
		this.epoch++;
	}
}
