import type { GraphSearchThread, ViewedGraphHandle } from "./graph-search-thread";
import type { BufferReleaser } from "./release-memory";
import type { CachedSource, DocumentVersions } from "./source-chunk-cache";
import { groupedByCounting, inSlices, unpackStrings } from "./thread-transfer";
import { SourceMatrix } from "./vector-cache";
import { HNSW_CANDIDATES, HNSW_RESCORED, type VectorIndexTransfer } from "./vector-index-files";

/**
 * One generation of a source's vector index files (vector-index-files.ts) as the API's thread
 * holds it: which chunk and document each key is, and which keys are dead. The files are searched
 * on the graph-search thread (graph-search-thread.ts): the HNSW graph viewed (memory-mapped,
 * immutable) for dense queries, the int8 column runs scanned exactly for sparse ones (builtin
 * vectors, whose generations have no graph), the best candidates of either rescored exactly from
 * the float32 vectors. Chunks of documents
 * removed since the generation was built are dead keys: skipped there (the flags are shared
 * memory, written here), and asked for in excess so they never crowd out live ones (removal
 * stays exact).
 */
export class ApproximateIndex {
	private readonly dead: Uint8Array;
	private deadCount = 0;
	/** Keys live when the generation was built. */
	private readonly liveKeys: number;

	private graph: ViewedGraphHandle | null = null;

	private constructor(
		readonly generation: VectorIndexTransfer,
		readonly keysOfDocument: Map<string, Int32Array>,
		readonly versions: DocumentVersions,
		private readonly graphs: GraphSearchThread,
		dead: Uint8Array,
		liveKeys: number,
	) {
		this.dead = dead;
		this.liveKeys = liveKeys;
	}

	static async fromTransfer(generation: VectorIndexTransfer, graphs: GraphSearchThread): Promise<ApproximateIndex> {
		const documentIds = unpackStrings(generation.documentIds);
		const documentVersions = unpackStrings(generation.versions);
		const versions: DocumentVersions = new Map();
		await inSlices(documentIds.length, (index) => versions.set(documentIds[index], documentVersions[index]));
		// Each document's keys as a view of one typed array.
		const keysOfDocument = await groupedByCounting(generation.count, generation.documentOfKey, documentIds);
		// A key of no document (removed before the build) is dead from the start; a million keys are flagged in slices.
		const dead = new Uint8Array(new SharedArrayBuffer(generation.count));
		let liveKeys = 0;
		await inSlices(generation.count, (key) => {
			if (generation.documentOfKey[key] < 0) dead[key] = 1;
			else liveKeys++;
		});
		const index = new ApproximateIndex(generation, keysOfDocument, versions, graphs, dead, liveKeys);
		const { directory, name, dimensions, count, segments, columns, graph } = generation;
		index.graph = await graphs.view(index, { directory, name, dimensions, count, segments, columns, graph, dead: index.dead.buffer as SharedArrayBuffer });
		return index;
	}

	get dimensions(): number {
		return this.generation.dimensions;
	}

	/** Keys dead since the generation was built (removed documents): what a fold would drop. */
	get removedSinceBuilt(): number {
		return this.deadCount;
	}

	get size(): number {
		return this.graph ? this.liveKeys - this.deadCount : 0;
	}

	/** Whether the generation has an HNSW graph (for dense queries) or only column runs. */
	get hasGraph(): boolean {
		return this.generation.graph;
	}

	/** The mapped graph (searches bring its pages into memory; none for column runs, read through the page cache) and the per-key bookkeeping. */
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

	async nearest(query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		if (!this.graph || query.length !== this.dimensions || this.size === 0) return [];
		const candidates = Math.max(HNSW_CANDIDATES, limit + this.deadCount);
		const { chunkIds, similarities } = await this.graphs.search(this.graph, query, candidates, Math.max(HNSW_RESCORED, limit), limit);
		return chunkIds.map((chunkId, index) => ({ chunkId, similarity: similarities[index] }));
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
	/** The source's queries are dense (provider embeddings): its generations get an HNSW graph, not only column runs. */
	denseQueries = true;

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

	/**
	 * The nearest chunks: the graph's (searched on the graph-search thread) merged with the exact
	 * tail's; without a graph, the exact matrix, scanned in slices that leave the event loop free
	 * between them when it is large.
	 */
	async nearest(query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		const { approximate } = this;
		if (!approximate) return this.tail.nearestInSlices(query, limit);
		const fromGraph = approximate.nearest(query, limit);
		const hits = [...this.tail.nearest(query, limit), ...(await fromGraph)];
		return hits.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
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
	adopt(approximate: ApproximateIndex, releaser?: BufferReleaser): void {
		this.approximate = approximate;
		// What the tail held is in the generation or read again by the next search (the caller marks the source
		// stale), so its memory goes back now: the 2 GB exact matrix of a million chunks before their first graph.
		this.tail.release(releaser);
		this.tail = new SourceMatrix();
		this.tail.dimensions = approximate.dimensions;
		this.versions.clear();
		for (const [documentId, version] of approximate.versions) this.versions.set(documentId, version);
		this.epoch++;
	}
}
