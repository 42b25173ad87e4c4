import { rm } from "node:fs/promises";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { DatabaseNotifications } from "../../db/notifications";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../options";
import type { IndexBuilderPool } from "./index-builder-pool";
import type { SearchMemoryBudget } from "./search-memory-budget";
import { type BufferReleaser, releasableBuffers, releaseBuffers } from "./release-memory";
import { type CachedSource, DOCUMENT_VERSION_SQL, type DocumentVersions, type LoadOptions, REBUILD_CHANGED_CHUNKS, SourceChunkCache, type SourceRef } from "./source-chunk-cache";
import { ApproximateIndex, SourceVectors } from "./source-vectors";
import { sourceIndexDirectory } from "./vector-index-files";
import { buffersOf, inSlices, type PackedStrings, PackedStringTable, packStrings, stringStarts, unpackStrings } from "./thread-transfer";
import { SlotIds } from "./slot-ids";
import { decodeVector, usedDimensions } from "./vector-encoding";

/** One chunk's vector as read from PostgreSQL, with its document's version. */
export interface VectorChunkRow {
	id: string;
	document_id: string;
	version: string;
	embedding: Buffer;
}

/**
 * A source's vectors in one Float32Array, dimension-major (column i holds dimension i of every
 * slot, `capacity` apart): a query touches only its non-zero dimensions, each a contiguous run.
 * Builtin query vectors have a few dozen non-zero buckets of 512, so a 100k-chunk search reads a
 * few megabytes instead of 200. Slots have room to spare: new chunks take freed slots or spare
 * ones, and only outgrowing the capacity copies the matrix (by a quarter more each time, so
 * amortised); removed chunks' columns are zeroed and their slots skipped.
 *
 * Built on an index-builder thread and handed over whole (toTransfer / fromTransfer: the matrix's
 * buffer moves, it is not copied); changes arrive as a matrix of the changed documents (absorb).
 */
export class SourceMatrix implements CachedSource {
	readonly versions: DocumentVersions = new Map();
	private readonly slotsOfDocument = new Map<string, number[]>();
	/** Fixed by the first vector; rows of another size are skipped (ingestion refuses them anyway). */
	dimensions = 0;
	private capacity = 0;
	private slotCount = 0;
	private matrix = new Float32Array(0);
	/** Chunk ids, decoded only for hits; slot s's is chunkIds.at(idOfSlot.at(s)) (slots are reused, ids only added). */
	private chunkIds = new PackedStringTable();
	private idOfSlot = new SlotIds();
	private live = new Uint8Array(0);
	private free: number[] = [];
	/** Per-query scratch, reused (scoring is synchronous): no 100k-entry allocation per query for the GC. */
	private scores = new Float32Array(0);
	/** Scratch of scans in slices (several may be under way at once), kept for the next ones. */
	private sliceScratch: Float32Array[] = [];
	private liveCount = 0;
	/** Bumped by every change of slots: a scan in slices that sees it move starts over. */
	private changes = 0;
	/** Scans in slices under way, and where the matrix's buffers go once none is, when it is released (release). */
	private scansUnderWay = 0;
	private releasing: BufferReleaser | null = null;

	static fromRows(rows: VectorChunkRow[]): SourceMatrix {
		const matrix = new SourceMatrix();
		matrix.apply([], rows);
		return matrix;
	}

	get size(): number {
		return this.liveCount;
	}

	/** Bytes of the matrix, scratch and chunk ids; for the budget and the benchmark. */
	memoryBytes(): number {
		const scratch = this.sliceScratch.reduce((sum, scores) => sum + scores.byteLength, this.scores.byteLength);
		return this.matrix.byteLength + scratch + this.live.byteLength + this.idOfSlot.byteLength + this.chunkIds.byteLength;
	}

	apply(removedDocuments: string[], rows: VectorChunkRow[]): void {
		this.changes++;
		for (const documentId of removedDocuments) this.removeDocument(documentId);
		if (this.dimensions === 0 && rows.length > 0) this.dimensions = rows[0].embedding.length / 4;
		const usable = rows.filter((row) => row.embedding.length === this.dimensions * 4);
		this.makeRoom(usable.length);
		for (const row of usable) {
			const slot = this.free.pop() ?? this.slotCount++;
			const values = decodeVector(row.embedding, this.dimensions);
			for (let dimension = 0; dimension < this.dimensions; dimension++) this.matrix[dimension * this.capacity + slot] = values[dimension];
			this.place(slot, row.id, row.document_id, row.version);
		}
	}

	/**
	 * Room for `slots` chunks in all without copying the matrix again: a build that knows its row
	 * count sizes the matrix once (with the usual sixteenth to spare). Needs the dimensions (a first row).
	 */
	reserve(slots: number): void {
		if (this.dimensions > 0 && slots > this.capacity) this.resize(slots + Math.ceil(slots / 16));
	}

	/**
	 * Removes the chunks of `removedDocuments`, then takes every chunk of `delta` (a matrix built
	 * from the changed documents' rows) as if its rows were applied here: same slots, same values.
	 */
	absorb(removedDocuments: string[], delta: SourceMatrix | null): void {
		this.changes++;
		for (const documentId of removedDocuments) this.removeDocument(documentId);
		if (!delta || delta.liveCount === 0) return;
		if (this.dimensions === 0) this.dimensions = delta.dimensions;
		if (delta.dimensions !== this.dimensions) return;
		this.makeRoom(delta.liveCount);
		const documentOf: string[] = new Array(delta.slotCount);
		for (const [documentId, slots] of delta.slotsOfDocument) for (const slot of slots) documentOf[slot] = documentId;
		const rows: number[] = [];
		const slots: number[] = [];
		for (let from = 0; from < delta.slotCount; from++) {
			if (delta.live[from] === 0) continue;
			const slot = this.free.pop() ?? this.slotCount++;
			rows.push(from);
			slots.push(slot);
			this.place(slot, delta.chunkIdOf(from), documentOf[from], delta.versions.get(documentOf[from]) ?? "");
		}
		// Column by column (the matrix is dimension-major): the values of new slots are contiguous
		// there, where row by row each value of a row is in another column (a 770-row document into
		// 300,000 rows: about 4 ms instead of 5).
		for (let dimension = 0; dimension < this.dimensions; dimension++) {
			const into = dimension * this.capacity;
			const from = dimension * delta.capacity;
			for (let index = 0; index < rows.length; index++) this.matrix[into + slots[index]] = delta.matrix[from + rows[index]];
		}
	}

	/** Nearest chunks by dot product (cosine: vectors are normalised), best first. */
	nearest(query: Float32Array, limit: number): { chunkId: string; similarity: number }[] {
		const { matrix, scores, capacity } = this;
		const count = this.slotCount;
		if (this.liveCount === 0 || this.dimensions !== query.length) return [];
		scoreRows(matrix, capacity, query, usedDimensions(query), scores, 0, count);
		return topIndices(scores, count, this.live, limit).map((index) => ({ chunkId: this.chunkIdOf(index), similarity: scores[index] }));
	}

	/**
	 * nearest's result, scored SLICE_ROWS rows at a time with a turn of the event loop between
	 * slices: an exact scan of a million rows (a large source's vectors until its HNSW graph is
	 * built) is tens of milliseconds that every tenant's requests would otherwise wait for. A change
	 * absorbed meanwhile (slots may be reused) starts the scan over.
	 */
	async nearestInSlices(query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		if (this.slotCount <= SLICE_ROWS) return this.nearest(query, limit);
		this.scansUnderWay++;
		try {
			for (;;) {
				const changes = this.changes;
				const { matrix, capacity } = this;
				const count = this.slotCount;
				if (this.liveCount === 0 || this.dimensions !== query.length) return [];
				const used = usedDimensions(query);
				let scores = this.sliceScratch.pop();
				if (!scores || scores.length < count) scores = new Float32Array(capacity);
				try {
					for (let start = 0; start < count && this.changes === changes; start += SLICE_ROWS) {
						if (start > 0) await new Promise((resolve) => setImmediate(resolve));
						if (this.changes === changes) scoreRows(matrix, capacity, query, used, scores, start, Math.min(count, start + SLICE_ROWS));
					}
					if (this.changes !== changes) continue;
					const hits = topIndices(scores, count, this.live, limit);
					return hits.map((index) => ({ chunkId: this.chunkIdOf(index), similarity: (scores as Float32Array)[index] }));
				} finally {
					this.sliceScratch.push(scores);
				}
			}
		} finally {
			this.scansUnderWay--;
			if (this.releasing && this.scansUnderWay === 0) this.releaseNow();
		}
	}

	/**
	 * For a matrix nothing will search again (an HNSW generation took its place): its vectors and
	 * scratch go to `releaser` to be freed (by default on this thread) now, or when the last scan in
	 * slices under way ends. It then holds nothing: a search of it finds nothing.
	 */
	release(releaser: BufferReleaser = releaseBuffers): void {
		this.releasing = releaser;
		if (this.scansUnderWay === 0) this.releaseNow();
	}

	private releaseNow(): void {
		const arrays = [this.matrix, this.scores, ...this.sliceScratch];
		this.matrix = new Float32Array(0);
		this.scores = new Float32Array(0);
		this.sliceScratch = [];
		this.capacity = 0;
		this.slotCount = 0;
		this.liveCount = 0;
		this.changes++;
		const releaser = this.releasing ?? releaseBuffers;
		this.releasing = null;
		releaser(releasableBuffers(arrays));
	}

	private chunkIdOf(slot: number): string {
		return this.chunkIds.at(this.idOfSlot.at(slot));
	}

	/**
	 * The matrix as it moves between threads: its typed arrays (listed in `buffers`, to be
	 * transferred rather than copied; this matrix is unusable afterwards) and its strings packed.
	 */
	toTransfer(): { transfer: MatrixTransfer; buffers: ArrayBuffer[] } {
		const documentIds = [...this.slotsOfDocument.keys()];
		const documentOfSlot = new Int32Array(this.slotCount).fill(-1);
		documentIds.forEach((documentId, index) => {
			for (const slot of this.slotsOfDocument.get(documentId) ?? []) documentOfSlot[slot] = index;
		});
		const chunkIds = packStrings(Array.from({ length: this.slotCount }, (_, slot) => (this.live[slot] ? this.chunkIdOf(slot) : "")));
		const transfer: MatrixTransfer = {
			chunkIds,
			chunkIdStarts: stringStarts(chunkIds),
			documentIds: packStrings(documentIds),
			documentVersions: packStrings(documentIds.map((documentId) => this.versions.get(documentId) ?? "")),
			documentOfSlot,
			matrix: this.matrix,
			live: this.live,
			free: Int32Array.from(this.free),
			dimensions: this.dimensions,
			capacity: this.capacity,
			slotCount: this.slotCount,
			liveCount: this.liveCount,
		};
		return {
			transfer,
			buffers: buffersOf(transfer.chunkIds.bytes, transfer.chunkIdStarts, transfer.documentIds.bytes, transfer.documentVersions.bytes, documentOfSlot, transfer.matrix, transfer.live, transfer.free),
		};
	}

	/** A matrix from toTransfer's output: the matrix and the packed chunk ids adopted as they are, the per-document slot lists rebuilt in slices. */
	static async fromTransfer(transfer: MatrixTransfer): Promise<SourceMatrix> {
		const matrix = new SourceMatrix();
		matrix.chunkIds = new PackedStringTable(transfer.chunkIds, transfer.chunkIdStarts);
		const documentIds = unpackStrings(transfer.documentIds);
		const documentVersions = unpackStrings(transfer.documentVersions);
		await inSlices(documentIds.length, (index) => matrix.versions.set(documentIds[index], documentVersions[index]));
		const { documentOfSlot } = transfer;
		await inSlices(transfer.slotCount, (slot) => {
			if (documentOfSlot[slot] < 0) return;
			const documentId = documentIds[documentOfSlot[slot]];
			const slots = matrix.slotsOfDocument.get(documentId);
			if (slots) slots.push(slot);
			else matrix.slotsOfDocument.set(documentId, [slot]);
		});
		matrix.matrix = transfer.matrix;
		matrix.live = transfer.live;
		matrix.free = Array.from(transfer.free);
		matrix.dimensions = transfer.dimensions;
		matrix.capacity = transfer.capacity;
		matrix.slotCount = transfer.slotCount;
		matrix.liveCount = transfer.liveCount;
		matrix.scores = new Float32Array(transfer.capacity);
		return matrix;
	}

	private removeDocument(documentId: string): void {
		this.changes++;
		for (const slot of this.slotsOfDocument.get(documentId) ?? []) {
			if (this.live[slot] === 0) continue;
			this.live[slot] = 0;
			this.liveCount--;
			for (let dimension = 0; dimension < this.dimensions; dimension++) this.matrix[dimension * this.capacity + slot] = 0;
			this.free.push(slot);
		}
		this.slotsOfDocument.delete(documentId);
		this.versions.delete(documentId);
	}

	/** Grows the capacity if `incoming` chunks would not fit in the free and spare slots. */
	private makeRoom(incoming: number): void {
		const needed = this.slotCount + Math.max(0, incoming - this.free.length);
		// A sixteenth spare on a full load, a quarter more on growth: a few new documents never copy 200 MB.
		if (needed > this.capacity) this.resize(Math.max(needed + Math.ceil(needed / 16), Math.ceil(this.capacity * 1.25), 64));
	}

	private place(slot: number, chunkId: string, documentId: string, version: string): void {
		this.idOfSlot.set(slot, this.chunkIds.add(chunkId));
		this.live[slot] = 1;
		this.liveCount++;
		const slots = this.slotsOfDocument.get(documentId);
		if (slots) slots.push(slot);
		else this.slotsOfDocument.set(documentId, [slot]);
		this.versions.set(documentId, version);
	}

	private resize(capacity: number): void {
		const matrix = new Float32Array(this.dimensions * capacity);
		for (let dimension = 0; dimension < this.dimensions; dimension++) {
			matrix.set(this.matrix.subarray(dimension * this.capacity, dimension * this.capacity + this.slotCount), dimension * capacity);
		}
		const live = new Uint8Array(capacity);
		live.set(this.live.subarray(0, this.slotCount));
		this.matrix = matrix;
		this.live = live;
		this.scores = new Float32Array(capacity);
		this.sliceScratch = [];
		this.capacity = capacity;
		this.changes++;
	}
}

/** Rows an exact scan in slices scores between turns of the event loop: a few milliseconds at a few dozen query dimensions. */
export const SLICE_ROWS = 65_536;


/** scores[start, end) = the dot products of rows [start, end) of a dimension-major matrix with the query (its `used` dimensions). */
function scoreRows(matrix: Float32Array, capacity: number, query: Float32Array, used: number[], scores: Float32Array, start: number, end: number): void {
	scores.fill(0, start, end);
	// Four columns per pass: a quarter of the passes over `scores` (1.6x faster at 100k chunks).
	let next = 0;
	for (; next + 3 < used.length; next += 4) {
		const [a, b, c, d] = [used[next] * capacity, used[next + 1] * capacity, used[next + 2] * capacity, used[next + 3] * capacity];
		const [wa, wb, wc, wd] = [query[used[next]], query[used[next + 1]], query[used[next + 2]], query[used[next + 3]]];
		for (let row = start; row < end; row++) scores[row] += wa * matrix[a + row] + wb * matrix[b + row] + wc * matrix[c + row] + wd * matrix[d + row];
	}
	for (; next < used.length; next++) {
		const offset = used[next] * capacity;
		const weight = query[used[next]];
		for (let row = start; row < end; row++) scores[row] += weight * matrix[offset + row];
	}
}

/** A matrix between threads (SourceMatrix.toTransfer): typed arrays and packed strings only. */
export interface MatrixTransfer {
	/** Slot order; "" for a free slot. */
	chunkIds: PackedStrings;
	chunkIdStarts: Uint32Array<ArrayBuffer>;
	documentIds: PackedStrings;
	documentVersions: PackedStrings;
	/** Slot -> index in documentIds, -1 for a free slot. */
	documentOfSlot: Int32Array<ArrayBuffer>;
	matrix: Float32Array<ArrayBuffer>;
	live: Uint8Array<ArrayBuffer>;
	free: Int32Array<ArrayBuffer>;
	dimensions: number;
	capacity: number;
	slotCount: number;
	liveCount: number;
}

/** Where and from what size sources get an HNSW index (KnowledgeOptions.indexDirectory, vectorIndexMinChunks). */
export interface VectorIndexSettings {
	/** Undefined: no files, every source keeps the exact matrix. */
	directory?: string;
	/** Sources with fewer vectors keep the exact matrix: exact, and a few milliseconds there. */
	minChunks: number;
	/** Chunks in the exact tail plus chunks removed from the graph that make a fold into a new generation due. */
	foldChunks: number;
}

export const DEFAULT_VECTOR_INDEX_SETTINGS: VectorIndexSettings = { minChunks: DEFAULT_KNOWLEDGE_OPTIONS.vectorIndexMinChunks, foldChunks: 2_000 };

/**
 * Per-source vectors (see SourceVectors), loaded on first search and brought up to date document
 * by document after a change (see SourceChunkCache); both on index-builder threads
 * (index-builder-pool.ts), never on the API's event loop. Small sources are ranked by a
 * brute-force dot product over a contiguous matrix in memory (a few milliseconds at 20k chunks).
 * With an index directory, a source of `minChunks` vectors or more gets index files written on a
 * builder thread: for builtin vectors (sparse queries) int8 column runs, written before its first
 * search and scanned exactly (vector-columns.ts); for a provider's (dense queries) an HNSW graph
 * built while searches use the matrix, then mapped. Either is kept up to date by an exact tail and
 * folds; after a restart the files are opened and only the documents changed since are read.
 * Changes arrive by LISTEN/NOTIFY (`knowledge_vectors`) so every instance (and worker) agrees.
 */
export class VectorCache extends SourceChunkCache<SourceVectors> {
	/** HNSW generations built and adopted, and builds that failed (the exact search goes on). */
	readonly indexStatistics = { builds: 0, failures: 0 };

	constructor(
		notifications: DatabaseNotifications,
		builders: IndexBuilderPool,
		budget: SearchMemoryBudget,
		budgetPrefix: string,
		private readonly indexSettings: VectorIndexSettings = DEFAULT_VECTOR_INDEX_SETTINGS,
	) {
		super(notifications, builders, budget, budgetPrefix);
	}

	matrixFor(em: EntityManager, source: SourceRef): Promise<SourceVectors> {
		return this.current(em, source);
	}

	async nearest(em: EntityManager, source: SourceRef, query: Float32Array, limit: number): Promise<{ chunkId: string; similarity: number }[]> {
		return (await this.matrixFor(em, source)).nearest(query, limit);
	}

	protected async loadAll(em: EntityManager, source: SourceRef, options: LoadOptions = {}): Promise<SourceVectors> {
		const { directory, minChunks } = this.indexSettings;
		const shape = directory ? await sourceShape(em, source.id) : { denseQueries: true, readyChunks: 0 };
		const restored = options.fromDatabase ? null : await this.openIndex(source, shape.denseQueries);
		if (restored) return restored;
		// A large source of sparse queries gets its column runs (or a fold of them) before its first
		// search: minutes less than a graph, and nothing of it held here (no exact matrix of 2 GB).
		if (directory && !shape.denseQueries && shape.readyChunks >= minChunks) {
			// Under the source's fold lock: a generation another process (the ingesting worker) has just written is taken as it is, then caught up.
			const generation = await this.builders.run(source.workspace, {
				kind: "vector-index",
				sourceId: source.id,
				directory,
				graph: false,
				condition: { minChunks, minChangedChunks: REBUILD_CHANGED_CHUNKS },
			});
			if (generation) {
				this.indexStatistics.builds++;
				return this.restoredVectors(await ApproximateIndex.fromTransfer(generation, this.builders.graphs), false);
			}
		}
		const vectors = new SourceVectors(await SourceMatrix.fromTransfer(await this.builders.run(source.workspace, { kind: "matrix", sourceId: source.id })));
		vectors.denseQueries = shape.denseQueries;
		this.indexIfDue(source, vectors);
		return vectors;
	}

	protected async applyChanges(_em: EntityManager, source: SourceRef, vectors: SourceVectors, changes: { removed: string[]; changed: string[] }): Promise<void> {
		const epoch = vectors.epoch;
		// Built at the held dimensions, so rows of another size are skipped there as they would be here.
		const delta = changes.changed.length
			? await SourceMatrix.fromTransfer(
					await this.builders.run(source.workspace, { kind: "matrix", sourceId: source.id, documentIds: changes.changed, dimensions: vectors.dimensions || undefined }),
				)
			: null;
		if (vectors.epoch !== epoch) {
			// A new generation came in meanwhile: these changes were computed against the old one.
			this.invalidate(source.id);
			return;
		}
		vectors.absorb(changes.removed, delta);
		this.indexIfDue(source, vectors);
	}

	/** A deleted source's HNSW files (a process that has them mapped keeps reading them until it lets go). */
	async removeIndexFiles(sourceId: string): Promise<void> {
		const { directory } = this.indexSettings;
		if (directory) await rm(sourceIndexDirectory(directory, sourceId), { recursive: true, force: true });
	}

	/** The source's current index generation from the directory, if any and usable; it is then brought up to date by versions. */
	private async openIndex(source: SourceRef, denseQueries: boolean): Promise<SourceVectors | null> {
		const { directory } = this.indexSettings;
		if (!directory) return null;
		try {
			const generation = await this.builders.run(source.workspace, { kind: "open-vector-index", sourceId: source.id, directory });
			if (!generation) return null;
			return this.restoredVectors(await ApproximateIndex.fromTransfer(generation, this.builders.graphs), denseQueries);
		} catch {
			// An unreadable or half-removed generation: the source loads from PostgreSQL, and gets a new one.
			return null;
		}
	}

	/** A generation with an empty tail, to be brought up to date by versions before its first search (it holds its build's snapshot). */
	private restoredVectors(approximate: ApproximateIndex, denseQueries: boolean): SourceVectors {
		const tail = new SourceMatrix();
		tail.dimensions = approximate.dimensions;
		const vectors = new SourceVectors(tail, approximate);
		vectors.denseQueries = denseQueries;
		vectors.restored = true;
		return vectors;
	}

	/** Builds the source's first generation, or folds the tail and removals into a new one, on a builder thread, once due. */
	private indexIfDue(source: SourceRef, vectors: SourceVectors): void {
		const { directory, minChunks, foldChunks } = this.indexSettings;
		if (!directory || vectors.indexing) return;
		if (vectors.approximate ? vectors.pendingFold < foldChunks : vectors.size < minChunks) return;
		vectors.indexing = true;
		this.builders
			.run(source.workspace, { kind: "vector-index", sourceId: source.id, directory, graph: vectors.denseQueries })
			.then(async (generation) => {
				if (!generation) return;
				// The exact matrix it replaces (2 GB at a million chunks) is freed on a builder thread: unmapping it
				// here held the event loop for 130 ms.
				vectors.adopt(await ApproximateIndex.fromTransfer(generation, this.builders.graphs), (buffers) => this.builders.release(source.workspace, buffers));
				this.indexStatistics.builds++;
				// The generation holds its build's snapshot: the next search catches up by document versions.
				this.invalidate(source.id);
			})
			.catch(() => {
				this.indexStatistics.failures++;
			})
			.finally(() => {
				vectors.indexing = false;
			});
	}
}

/**
 * Whether the source's queries are dense (a provider's embeddings: an HNSW graph finds their
 * neighbours) or sparse (the builtin embedder's hashed features: a few dozen of 512 dimensions,
 * scanned exactly over column runs), and how many chunks its READY documents hold.
 */
async function sourceShape(em: EntityManager, sourceId: string): Promise<{ denseQueries: boolean; readyChunks: number }> {
	const [row]: { embedding_provider: string; ready_chunks: number }[] = await em.getConnection().execute(
		`select s.embedding_provider, coalesce((select sum(d.chunk_count) from knowledge_documents d where d.source_id = s.id and d.status = 'READY'), 0)::int as ready_chunks
		 from knowledge_sources s where s.id = ?`,
		[sourceId],
	);
	return { denseQueries: row?.embedding_provider !== "builtin", readyChunks: Number(row?.ready_chunks ?? 0) };
}

/** The chunk vectors a matrix is built from, in slot order. `$1` the source; `$2`, when given, the documents to read. */
export function vectorChunkRowsSql(documents: "all" | "some"): string {
	return `select c.id, c.document_id, ${DOCUMENT_VERSION_SQL} as version, c.embedding
	 from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
	 where c.source_id = $1 and d.status = 'READY' and c.embedding is not null${documents === "some" ? " and c.document_id = any($2::text[])" : ""}
	 order by c.id`;
}

/** Indices of the `limit` largest scores among live slots, best first, without sorting everything. */
function topIndices(scores: Float32Array, count: number, live: Uint8Array, limit: number): number[] {
	const best: number[] = [];
	let floor = Number.NEGATIVE_INFINITY;
	for (let index = 0; index < count; index++) {
		const score = scores[index];
		if ((best.length >= limit && score <= floor) || live[index] === 0) continue;
		let position = best.length;
		while (position > 0 && scores[best[position - 1]] < score) position--;
		best.splice(position, 0, index);
		if (best.length > limit) best.pop();
		floor = scores[best[best.length - 1]];
	}
	return best;
}
