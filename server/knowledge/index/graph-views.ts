import { closeSync, openSync, readSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Index } from "usearch";
import { COLUMN_SCAN_MAX_USED_SHARE, closeColumnRuns, type ColumnPages, type ColumnScan, type ColumnScanScratch, columnScanScratch, type OpenColumnRuns, openColumnRuns, scanColumnRuns } from "./vector-columns";
import { TopK } from "./pruned-top-k";
import { usedDimensions } from "./vector-encoding";
import { GenerationChunkIds, graphPath, hnswIndex, segmentPath, type VectorSegment } from "./vector-index-files";

/**
 * What the graph-search thread (graph-search-thread.ts) needs to view a generation's HNSW graph
 * and rescore its candidates: where its files are, and the keys dead since it was built, shared
 * with the API's thread (which marks them as documents are removed) rather than copied.
 */
export interface GraphDescription {
	directory: string;
	name: string;
	dimensions: number;
	/** Keys ever given in the generation. */
	count: number;
	segments: VectorSegment[];
	/** The generation's int8 column runs (vector-columns.ts); empty for one written before them. */
	columns: VectorSegment[];
	/** Whether it has an HNSW graph (dense queries), or only column runs. */
	graph: boolean;
	/** One byte per key, 1 = dead: a SharedArrayBuffer the API's thread writes and this thread reads. */
	dead: SharedArrayBuffer;
}

export type GraphRequest =
	| { graph: number; op: "view"; request: number; description: GraphDescription }
	| { graph: number; op: "search"; request: number; query: Float32Array; candidates: number; rescored: number; limit: number }
	| { graph: number; op: "close" };

export type GraphReply =
	| { request: number; viewed: true }
	| { request: number; keys: Int32Array<ArrayBuffer>; chunkIds: string[]; similarities: Float32Array<ArrayBuffer>; byColumns: boolean; columnBlocks: { resident: number; read: number } }
	| { request: number; failure: string };

/** The best `limit` live keys of a search, by exact similarity, best first. */
export interface GraphHits {
	keys: Int32Array<ArrayBuffer>;
	/** The keys' chunk ids. */
	chunkIds: string[];
	similarities: Float32Array<ArrayBuffer>;
	/** Found by the exact scan of the int8 columns rather than by the graph. */
	byColumns: boolean;
}

/**
 * One generation's graph as the graph-search thread holds it: memory-mapped (`view`, which walks
 * every node: a few hundred milliseconds at a million keys, here rather than on the API's event
 * loop) and searched there, its best candidates by int8 similarity rescored exactly from the
 * float32 vectors of the generation's segment files (a positional read of each from the page cache).
 * A sparse query (builtin vectors) is instead scanned exactly over the generation's int8 columns
 * (vector-columns.ts), when they cover every key; its best candidates are rescored the same way.
 */
class ViewedGraph {
	private readonly index: Index | null;
	private readonly dead: Uint8Array;
	private readonly row: Float32Array;
	private readonly rowBytes: Uint8Array;
	/** The column runs, open while the generation is viewed; null when they do not cover its keys. */
	private readonly columnRuns: OpenColumnRuns | null;
	private readonly chunkIds: GenerationChunkIds;

	constructor(
		private readonly description: GraphDescription,
		/** The thread's column-scan memory, with the resident pages every generation it views shares (made at the first scan). */
		private readonly columnScratch: () => ColumnScanScratch,
	) {
		this.index = description.graph ? hnswIndex(description.dimensions) : null;
		this.index?.view(graphPath(description.directory, description.name));
		this.dead = new Uint8Array(description.dead);
		this.row = new Float32Array(description.dimensions);
		this.rowBytes = new Uint8Array(this.row.buffer);
		const { columns, count, directory, dimensions } = description;
		const covering = columns.length > 0 && columns[0].from === 0 && columns[columns.length - 1].to === count && columns.every((run, index) => index === 0 || run.from === columns[index - 1].to);
		if (!this.index && !covering) throw new Error(`The vector index generation ${description.name} has neither a graph nor column runs over all its keys`);
		this.columnRuns = covering ? openColumnRuns(directory, columns, dimensions) : null;
		try {
			this.chunkIds = new GenerationChunkIds(directory, description.name);
		} catch (error) {
			if (this.columnRuns) closeColumnRuns(this.columnRuns);
			throw error;
		}
	}

	/**
	 * Lets go of the column runs' and the chunk ids' files (the mapped graph goes when the index is
	 * collected), and of the resident pages of its blocks, if the thread has any.
	 */
	close(pages: ColumnPages | undefined): void {
		if (this.columnRuns) {
			closeColumnRuns(this.columnRuns);
			pages?.release(this.columnRuns.pageOf);
		}
		this.chunkIds.close();
	}

	/** Asks the graph for `candidates` keys, rescores the first `rescored` live ones exactly, returns the best `limit`. */
	nearest(query: Float32Array, candidates: number, rescored: number, limit: number): GraphHits {
		const used = usedDimensions(query);
		const sparse = used.length <= query.length * COLUMN_SCAN_MAX_USED_SHARE;
		// The constructor saw to it that a generation without a graph has runs over every key.
		const byColumns = this.columnRuns !== null && (sparse || !this.index);
		let keys: Iterable<bigint | number>;
		// A scan of every used dimension bounds how far a key's exact similarity is from its int8 score.
		let scan: ColumnScan | null = null;
		let toRescore = rescored;
		if (this.columnRuns && byColumns) {
			const { dimensions } = this.description;
			// A long query of a source without a graph: its heaviest dimensions find candidates (bounded
			// work), four times as many as usual, all rescored exactly over every dimension.
			const scanned = sparse ? used : heaviestDimensions(query, used, Math.floor(query.length * COLUMN_SCAN_MAX_USED_SHARE));
			if (!sparse) toRescore *= 4;
			const columnScan = scanColumnRuns(this.columnRuns, dimensions, query, scanned, this.dead, toRescore, this.columnScratch());
			keys = columnScan.keys;
			if (sparse) scan = columnScan;
		} else {
			const index = this.index as Index;
			keys = index.search(query, Math.min(index.size(), candidates), 1).keys;
		}
		const hits: { key: number; similarity: number }[] = [];
		// The limit-th best exact similarity so far: once a scanned key's int8 score plus the scan's
		// error is below it, neither that key nor any after it (lower int8 scores) can enter, and the
		// rest are not read (a row read a candidate, from the page cache, was a third of a search at
		// a million chunks).
		const exact = new TopK(limit);
		// Opened per search (microseconds), so nothing outlives the view but the mapped graph.
		const descriptors = new Map<number, number>();
		try {
			let index = -1;
			for (const bigKey of keys) {
				index++;
				const key = Number(bigKey);
				if (this.dead[key]) continue;
				if (scan && exact.full && scan.scores[index] + scan.error < exact.worstScore) break;
				const similarity = this.exactSimilarity(key, query, used, descriptors);
				hits.push({ key, similarity });
				exact.offer(key, similarity);
				if (hits.length === toRescore) break;
			}
		} finally {
			for (const descriptor of descriptors.values()) closeSync(descriptor);
		}
		const best = hits.sort((a, b) => b.similarity - a.similarity).slice(0, limit);
		return { keys: Int32Array.from(best, (hit) => hit.key), chunkIds: best.map((hit) => this.chunkIds.at(hit.key)), similarities: Float32Array.from(best, (hit) => hit.similarity), byColumns };
	}

	private exactSimilarity(key: number, query: Float32Array, used: number[], descriptors: Map<number, number>): number {
		const { segments, directory } = this.description;
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

/** The `count` dimensions of `used` where the query weighs most. */
function heaviestDimensions(query: Float32Array, used: number[], count: number): number[] {
	return [...used].sort((a, b) => Math.abs(query[b]) - Math.abs(query[a]) || a - b).slice(0, count);
}

/** The graphs the graph-search thread holds, by the number the API's thread gave each. */
export class GraphViews {
	private readonly graphs = new Map<number, ViewedGraph>();
	private collectGarbage: (() => void) | undefined;
	/** Made with the first generation viewed: a process that never scans columns reserves no pages. */
	private columnScratch: ColumnScanScratch | null = null;
	private warming = false;

	/** `residentColumnBytes`: the column blocks kept between scans (vector-columns.ts, ColumnPages; KNOWLEDGE_VECTOR_COLUMN_CACHE_MB). */
	constructor(private readonly residentColumnBytes = 0) {}

	/** Blocks the column scans found resident and read from files, and the bytes of pages written (for tests and operators). */
	get columnPages(): { resident: number; read: number; residentBytes: number } {
		const pages = this.columnScratch?.pages;
		return { resident: pages?.statistics.resident ?? 0, read: pages?.statistics.read ?? 0, residentBytes: pages?.residentBytes ?? 0 };
	}

	/**
	 * Faults in the column pages the next scans will take, a megabyte per turn of this thread's
	 * loop, between requests (ColumnPages.warmAhead): a scan then writes its new blocks into pages
	 * already resident instead of paying for their faults itself.
	 */
	private warmPages(): void {
		const pages = this.columnScratch?.pages;
		if (this.warming || !pages) return;
		this.warming = true;
		const step = () => {
			if (pages.warmAhead(WARM_STEP_PAGES)) setImmediate(step);
			else this.warming = false;
		};
		setImmediate(step);
	}

	/** Answers a request (a close has no answer); the typed arrays of a search's answer are to be transferred. */
	handle(request: GraphRequest): { reply: GraphReply; transfer: ArrayBuffer[] } | null {
		if (request.op === "close") {
			this.graphs.get(request.graph)?.close(this.columnScratch?.pages);
			this.graphs.delete(request.graph);
			// A let-go graph stays mapped until its native index is collected, and this thread allocates
			// little: collect now (this thread's small heap, a pause of its own, not the API's).
			this.collectGarbage ??= exposedGarbageCollector();
			this.collectGarbage();
			return null;
		}
		try {
			if (request.op === "view") {
				this.graphs.set(request.graph, new ViewedGraph(request.description, () => (this.columnScratch ??= columnScanScratch(this.residentColumnBytes))));
				return { reply: { request: request.request, viewed: true }, transfer: [] };
			}
			const graph = this.graphs.get(request.graph);
			if (!graph) throw new Error(`The graph ${request.graph} is not open on the graph-search thread`);
			const before = this.columnPages;
			const hits = graph.nearest(request.query, request.candidates, request.rescored, request.limit);
			const after = this.columnPages;
			const columnBlocks = { resident: after.resident - before.resident, read: after.read - before.read };
			if (hits.byColumns) this.warmPages();
			return { reply: { request: request.request, ...hits, columnBlocks }, transfer: [hits.keys.buffer, hits.similarities.buffer] };
		} catch (error) {
			return { reply: { request: request.request, failure: error instanceof Error ? error.message : String(error) }, transfer: [] };
		}
	}
}

/** Column pages faulted in per turn of the thread's loop while it is idle (4: 256 KiB, a millisecond at worst here; a search arriving waits for one turn at most). */
const WARM_STEP_PAGES = 4;

/** V8's collector as a function, on this thread only (`--expose-gc` cannot be given to a worker). */
function exposedGarbageCollector(): () => void {
	setFlagsFromString("--expose-gc");
	return runInNewContext("gc") as () => void;
}
