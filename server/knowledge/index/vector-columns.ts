import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { type ColumnKernel, columnKernel } from "./column-kernel";
import { TopK } from "./pruned-top-k";
import { segmentPath, type VectorSegment } from "./vector-index-files";

/**
 * A generation's vectors once more, as int8 columns: for builtin (hashed, sparse-query) vectors an
 * exact scan of the query's non-zero dimensions beats the HNSW graph on both time and recall (100k
 * chunks: 1.5 ms at recall 1 against 11.8 ms at 0.85 for the graph's 2,048 candidates), but the
 * float32 matrix it scans is 2 GB at a million chunks, held in memory. Here the scan reads the
 * same columns, a quarter of the size, from files through the page cache, a block of rows at a
 * time, so nothing of it stays in the process; the best candidates by int8 score are then rescored
 * exactly from the float32 segments, as the graph's are.
 *
 * A run covers keys [from, to) of a generation and is a file `<file>`:
 *   u32 rows, u32 dimensions, float32 scale per dimension (the column's largest magnitude / 127),
 *   then dimension d's int8 values of the run's rows at 8 + 4 * dimensions + d * rows.
 * Runs are built from the float32 segments (vector-index-build.ts) and merged as they accumulate,
 * so a source has a few of them (sizes roughly doubling), not one per fold.
 */

/** Rows scored per block: a block of scores (256 KiB) and its columns stay in the processor's cache. */
const BLOCK_ROWS = 65_536;

/** Rows read per pass while a run is written: 16 MiB of float32 at 512 dimensions. */
const WRITE_BLOCK_ROWS = 8_192;

/**
 * The column scan serves queries of at most this share of non-zero dimensions (builtin queries: a
 * few dozen of 512); denser ones (provider embeddings) read nearly every column, where the graph wins.
 */
export const COLUMN_SCAN_MAX_USED_SHARE = 1 / 4;

export const columnRunFile = (name: string, from: number, to: number) => `${name}.${from}-${to}.i8`;

const headerBytes = (dimensions: number) => 8 + 4 * dimensions;

/** Reads float32 rows [from, to) from a generation's segments, a block at a time. */
function* rowBlocks(directory: string, segments: VectorSegment[], dimensions: number, from: number, to: number): Generator<{ start: number; rows: Float32Array }> {
	const rowBytes = dimensions * 4;
	const buffer = new Float32Array(WRITE_BLOCK_ROWS * dimensions);
	const bytes = new Uint8Array(buffer.buffer);
	for (const segment of segments) {
		const start = Math.max(from, segment.from);
		const end = Math.min(to, segment.to);
		if (start >= end) continue;
		const descriptor = openSync(segmentPath(directory, segment.file), "r");
		try {
			for (let block = start; block < end; block += WRITE_BLOCK_ROWS) {
				const count = Math.min(WRITE_BLOCK_ROWS, end - block);
				const read = readSync(descriptor, bytes, 0, count * rowBytes, (block - segment.from) * rowBytes);
				if (read !== count * rowBytes) throw new Error(`The vector segment ${segment.file} is shorter than its keys`);
				yield { start: block, rows: buffer.subarray(0, count * dimensions) };
			}
		} finally {
			closeSync(descriptor);
		}
	}
}

/** Writes the run of keys [from, to) as int8 columns, from the float32 segments that hold them. */
export function writeColumnRun(directory: string, segments: VectorSegment[], dimensions: number, run: VectorSegment): void {
	const rows = run.to - run.from;
	const scales = new Float32Array(dimensions);
	for (const { rows: block } of rowBlocks(directory, segments, dimensions, run.from, run.to)) {
		for (let offset = 0; offset < block.length; offset += dimensions) {
			for (let dimension = 0; dimension < dimensions; dimension++) {
				const magnitude = Math.abs(block[offset + dimension]);
				if (magnitude > scales[dimension]) scales[dimension] = magnitude;
			}
		}
	}
	for (let dimension = 0; dimension < dimensions; dimension++) scales[dimension] = scales[dimension] > 0 ? scales[dimension] / 127 : 1;
	const descriptor = openSync(segmentPath(directory, run.file), "w");
	try {
		const header = Buffer.alloc(headerBytes(dimensions));
		header.writeUInt32LE(rows, 0);
		header.writeUInt32LE(dimensions, 4);
		Buffer.from(scales.buffer).copy(header, 8);
		writeSync(descriptor, header, 0, header.length, 0);
		const columns = new Int8Array(WRITE_BLOCK_ROWS * dimensions);
		for (const { start, rows: block } of rowBlocks(directory, segments, dimensions, run.from, run.to)) {
			const count = block.length / dimensions;
			for (let row = 0; row < count; row++) {
				for (let dimension = 0; dimension < dimensions; dimension++) {
					columns[dimension * count + row] = Math.round(block[row * dimensions + dimension] / scales[dimension]);
				}
			}
			for (let dimension = 0; dimension < dimensions; dimension++) {
				writeSync(descriptor, columns, dimension * count, count, headerBytes(dimensions) + dimension * rows + (start - run.from));
			}
		}
	} finally {
		closeSync(descriptor);
	}
}

/**
 * The column runs of a new generation: the base's, with the newest ones merged into the run of the
 * keys this generation adds while they are no larger than it (a binary counter: run sizes roughly
 * double from the newest back, so a million keys folded 2,000 at a time make about nine runs, and
 * each key is rewritten about as many times over the source's life). Writes the runs it makes.
 */
export function nextColumnRuns(directory: string, name: string, segments: VectorSegment[], dimensions: number, base: VectorSegment[], added: { from: number; to: number }): VectorSegment[] {
	const runs = [...base];
	let from = added.from;
	const to = added.to;
	while (runs.length > 0 && runs[runs.length - 1].to - runs[runs.length - 1].from <= to - from) from = (runs.pop() as VectorSegment).from;
	// Keys a base without runs (written before them) never had in a run: covered from the start.
	if (runs.length === 0) from = 0;
	if (to > from) {
		const run = { file: columnRunFile(name, from, to), from, to };
		writeColumnRun(directory, segments, dimensions, run);
		runs.push(run);
	}
	return runs;
}

/**
 * A generation's runs as a search reads them: each file open from when the generation is viewed
 * until it is let go, so a run a later generation merged away (its file removed once old enough)
 * stays readable by a process still searching this one; and each run's scales.
 */
export interface OpenColumnRuns {
	runs: VectorSegment[];
	descriptors: number[];
	scales: Float32Array[];
	/**
	 * Where each of its column blocks is kept in a scan's resident pages (ColumnPages), -1 where it
	 * is not: (the run's first block + the block) x dimensions + the dimension.
	 */
	pageOf: Int32Array;
	/**
	 * Blocks read from the files at least once (1), keyed as pageOf: a block gets a page the second
	 * time a scan reads it. Writing a block into a page moves it through memory where reading it into
	 * the scan's scratch stays in the processor's cache, so a block read once (a first pass over
	 * queries) costs least left in its file, and pages go to the blocks that come back.
	 */
	readBefore: Uint8Array;
	/** Per run, the index of its first block among all the runs' blocks. */
	firstBlock: number[];
}

/** Opens a generation's runs and reads their scales (checking each file against its run). */
export function openColumnRuns(directory: string, runs: VectorSegment[], dimensions: number): OpenColumnRuns {
	const firstBlock: number[] = [];
	let blocks = 0;
	for (const run of runs) {
		firstBlock.push(blocks);
		blocks += Math.ceil((run.to - run.from) / BLOCK_ROWS);
	}
	const opened: OpenColumnRuns = { runs, descriptors: [], scales: [], pageOf: new Int32Array(blocks * dimensions).fill(-1), readBefore: new Uint8Array(blocks * dimensions), firstBlock };
	try {
		for (const run of runs) {
			const descriptor = openSync(segmentPath(directory, run.file), "r");
			opened.descriptors.push(descriptor);
			const header = new Uint8Array(headerBytes(dimensions));
			readSync(descriptor, header, 0, header.length, 0);
			const view = new DataView(header.buffer);
			if (view.getUint32(0, true) !== run.to - run.from || view.getUint32(4, true) !== dimensions) throw new Error(`The column run ${run.file} does not match its generation`);
			opened.scales.push(new Float32Array(header.buffer.slice(8)));
		}
		return opened;
	} catch (error) {
		closeColumnRuns(opened);
		throw error;
	}
}

export function closeColumnRuns(opened: OpenColumnRuns): void {
	for (const descriptor of opened.descriptors.splice(0)) closeSync(descriptor);
}

/** Where the kernel's memory holds a block's scores (int32), its four columns (int8), the rows above a floor (int32), then the resident pages. */
const SCORES_AT = 0;
const COLUMNS_AT = BLOCK_ROWS * 4;
const ROWS_AT = COLUMNS_AT + 4 * BLOCK_ROWS;
const PAGES_AT = ROWS_AT + BLOCK_ROWS * 4;

/** A resident page holds one block of one column of one run. */
export const COLUMN_PAGE_BYTES = BLOCK_ROWS;

/** Fewer pages than this are none: a group of four columns must never evict one of its own. */
const MINIMUM_PAGES = 16;

/**
 * A page's first write costs the kernel's fault (0.6-3.8 ms a MiB on this machine, day to day): a
 * scan of a million rows taking a fresh page for each of its ~272 new blocks paid up to 65 ms of
 * them (at 3.8), which made the first searches after a start the slowest by far. So a scan takes
 * at most this many fresh pages (1 MiB) and reads its other new blocks as it would with no pages;
 * the pages fill over the first searches. Pages faulted in ahead while the thread is idle
 * (warmAhead, up to WARM_AHEAD_PAGES past those handed out) are not fresh.
 */
const FRESH_PAGES_PER_SCAN = 16;
const WARM_AHEAD_PAGES = 512;

/**
 * Column blocks kept in the kernel's memory between scans, so a scan reads them where they are
 * instead of copying them out of the page cache again: at a million chunks a builtin query's ~17
 * columns are 17 MB, and copying them from the page cache was two thirds of the scan (4.7 of 7.2
 * ms on this machine), the kernel itself the rest. One set of pages per graph-search thread, shared
 * by every generation it views (a page is a block of one generation's column: OpenColumnRuns.pageOf
 * says which it holds); the least recently used page is taken for a block not yet held. The
 * memory is reserved at once and its pages become resident as they are first written, so a
 * budget never reached costs nothing. Pages are only ever read into by the scan: a generation's
 * runs never change while it is viewed.
 */
export class ColumnPages {
	readonly count: number;
	/** Per page, the table that holds it (null: free) and its key there. */
	private readonly owners: (Int32Array | null)[];
	private readonly keys: Int32Array;
	/** Least recently used order as a doubly linked list of pages (-1 ends it); `newest` is the most recently used. */
	private readonly older: Int32Array;
	private readonly newer: Int32Array;
	private newest = -1;
	private oldest = -1;
	/** Pages handed out at least once (pages past it were never written), and those freed since. */
	private handedOut = 0;
	private readonly free: number[] = [];
	/** Blocks found resident, and read from a run's file (into a page, or the scratch when no page can be had); for tests and benchmarks. */
	readonly statistics = { resident: 0, read: 0 };
	/** The pages' memory (set by columnScanScratch), and how far pages were faulted in ahead (warmAhead). */
	memory: Uint8Array = new Uint8Array(0);
	private warmed = 0;
	/** Fresh pages taken by the scan under way (FRESH_PAGES_PER_SCAN). */
	private freshThisScan = 0;

	constructor(bytes: number) {
		const count = Math.floor(bytes / COLUMN_PAGE_BYTES);
		this.count = count >= MINIMUM_PAGES ? count : 0;
		this.owners = new Array<Int32Array | null>(this.count).fill(null);
		this.keys = new Int32Array(this.count);
		this.older = new Int32Array(this.count).fill(-1);
		this.newer = new Int32Array(this.count).fill(-1);
	}

	/** The page of `table`'s `key` if resident (it becomes the most recently used), else -1. */
	find(table: Int32Array, key: number): number {
		const page = table[key];
		if (page >= 0) {
			this.unlink(page);
			this.pushNewest(page);
		}
		return page;
	}

	/** A scan starts: it may take FRESH_PAGES_PER_SCAN fresh pages. */
	startScan(): void {
		this.freshThisScan = 0;
	}

	/**
	 * A page for `table`'s `key` (free, never used, or taken from the least recently used block),
	 * now the most recently used; -1 with no pages, or none the scan may take (it reads the block
	 * into its scratch instead).
	 */
	take(table: Int32Array, key: number): number {
		if (this.count === 0) return -1;
		let page: number;
		if (this.free.length > 0) page = this.free.pop() as number;
		else if (this.handedOut < this.count) {
			const fresh = this.handedOut >= this.warmed;
			if (fresh && this.freshThisScan >= FRESH_PAGES_PER_SCAN) return -1;
			if (fresh) this.freshThisScan++;
			page = this.handedOut++;
		} else {
			page = this.oldest;
			this.unlink(page);
			(this.owners[page] as Int32Array)[this.keys[page]] = -1;
		}
		this.owners[page] = table;
		this.keys[page] = key;
		table[key] = page;
		this.pushNewest(page);
		return page;
	}

	/** Frees every page `table` holds (its generation is let go). */
	release(table: Int32Array): void {
		for (let page = 0; page < this.handedOut; page++) {
			if (this.owners[page] !== table) continue;
			this.unlink(page);
			table[this.keys[page]] = -1;
			this.owners[page] = null;
			this.free.push(page);
		}
	}

	/**
	 * Faults in up to `step` pages past those handed out (never one handed out: a write there would
	 * change a block), up to WARM_AHEAD_PAGES ahead; for a thread's idle moments, between scans.
	 * Returns whether more remain to warm.
	 */
	warmAhead(step: number): boolean {
		const target = Math.min(this.count, this.handedOut + WARM_AHEAD_PAGES);
		const from = Math.max(this.warmed, this.handedOut);
		const to = Math.min(target, from + step);
		for (let byte = from * COLUMN_PAGE_BYTES; byte < to * COLUMN_PAGE_BYTES; byte += 4096) this.memory[byte] = 0;
		this.warmed = Math.max(from, to);
		return this.warmed < target;
	}

	/** Bytes of pages written so far (they stay resident, reused, up to the budget). */
	get residentBytes(): number {
		return this.handedOut * COLUMN_PAGE_BYTES;
	}

	private unlink(page: number): void {
		const older = this.older[page];
		const newer = this.newer[page];
		if (newer >= 0) this.older[newer] = older;
		else this.newest = older;
		if (older >= 0) this.newer[older] = newer;
		else this.oldest = newer;
		this.older[page] = -1;
		this.newer[page] = -1;
	}

	private pushNewest(page: number): void {
		this.older[page] = this.newest;
		this.newer[page] = -1;
		if (this.newest >= 0) this.newer[this.newest] = page;
		else this.oldest = page;
		this.newest = page;
	}
}

/** A column scan's working memory: the WebAssembly kernel (column-kernel.wat) and the views of its memory the scan reads into. */
export interface ColumnScanScratch {
	/** The block's scores (set, or added to when `add` is 1) from four columns and their int16 weights, in integers. */
	accumulate: ColumnKernel["accumulateIntegers"];
	/** Writes the rows scoring above `floor` to `rowsAbove`, returns how many. */
	above: ColumnKernel["aboveIntegers"];
	/** In units of the run's weights (scanColumnRuns). */
	scores: Int32Array;
	rowsAbove: Int32Array;
	/** The kernel's whole memory: blocks are read into it (its four scratch columns, or pages). */
	memory: Uint8Array;
	pages: ColumnPages;
}

/**
 * Scratch for scanColumnRuns (768 KiB), with `residentBytes` of pages (ColumnPages; 0: none, every
 * block is read from its file at every scan), in one memory of the kernel's, never grown. Made
 * once per graph-search thread (scans there run one at a time).
 */
export function columnScanScratch(residentBytes = 0): ColumnScanScratch {
	const pages = new ColumnPages(residentBytes);
	const { buffer, accumulateIntegers, aboveIntegers } = columnKernel(PAGES_AT + pages.count * COLUMN_PAGE_BYTES);
	pages.memory = new Uint8Array(buffer, PAGES_AT, pages.count * COLUMN_PAGE_BYTES);
	return {
		accumulate: accumulateIntegers,
		above: aboveIntegers,
		scores: new Int32Array(buffer, SCORES_AT, BLOCK_ROWS),
		rowsAbove: new Int32Array(buffer, ROWS_AT, BLOCK_ROWS),
		memory: new Uint8Array(buffer),
		pages,
	};
}

/** A column scan's best keys, best first, with their int8 scores and how far any key's int8 score may be from its exact similarity. */
export interface ColumnScan {
	keys: number[];
	scores: number[];
	/**
	 * A key's exact similarity over the scanned dimensions is within this of its int8 score: each
	 * int8 value is within half its column's scale of the float32 one, and each weight within half
	 * a unit of its int16 one (scanColumnRuns), times at most 127; float rounding adds far less,
	 * covered by a small slack.
	 */
	error: number;
}

/**
 * Scans a generation's column runs for `query` (its `used` dimensions), skipping dead keys, and
 * returns the `candidates` best keys by int8 score, best first. A block of rows at a time: its
 * columns four by four, each four added to the block's scores by the kernel, 16 rows per
 * instruction, in integers (the query's weights as int16 multiples of a unit per run: exact int32
 * sums, the kernel 2.25 times as fast as in float32 in bench:column-kernel, and the kernel was most
 * of a scan at a million rows once its blocks were resident); a column block is read where it is
 * resident (scratch.pages), or read from its file (a positional read from the page cache into the
 * kernel's memory), into a page it then keeps if the block was read before
 * (OpenColumnRuns.readBefore).
 */
export function scanColumnRuns(
	opened: OpenColumnRuns,
	dimensions: number,
	query: Float32Array,
	used: number[],
	dead: Uint8Array,
	candidates: number,
	scratch: ColumnScanScratch,
): ColumnScan {
	const best = new TopK(candidates);
	// What a row must score above to enter: the worst held once full (a tie keeps the lower key, scanned first).
	const floor = () => (best.full ? best.worstScore : Number.NEGATIVE_INFINITY);
	const { scores, rowsAbove, accumulate, above, memory, pages } = scratch;
	const { pageOf, readBefore, firstBlock } = opened;
	const addresses = [0, 0, 0, 0];
	pages.startScan();
	// Padded to fours with weight 0 (the kernel adds four columns at once; 0 times any int8 is 0).
	const weights = new Int32Array(Math.ceil(used.length / 4) * 4);
	// The largest int16 weight, lower where a row's sum of products could pass int32 (hundreds of dimensions).
	const largestWeight = Math.min(32_767, Math.floor(2 ** 31 / (127 * Math.max(1, used.length))) - 1);
	const { runs, descriptors, scales } = opened;
	let error = 0;
	for (let runIndex = 0; runIndex < runs.length; runIndex++) {
		const run = runs[runIndex];
		const rows = run.to - run.from;
		// The query's weights times the run's scales (a column's int8 values are then summed as they are), in units of the largest's largestWeight-th.
		const exactWeights = used.map((dimension) => query[dimension] * scales[runIndex][dimension]);
		const largest = exactWeights.reduce((most, weight) => Math.max(most, Math.abs(weight)), 0);
		const unit = largest > 0 ? largest / largestWeight : 1;
		let runError = 0;
		exactWeights.forEach((weight, position) => {
			weights[position] = Math.round(weight / unit);
			runError += Math.abs(weight) / 2 + (127 * Math.abs(weight - weights[position] * unit));
		});
		error = Math.max(error, runError);
		const descriptor = descriptors[runIndex];
		for (let block = 0; block < rows; block += BLOCK_ROWS) {
			const count = Math.min(BLOCK_ROWS, rows - block);
			const padded = Math.ceil(count / 16) * 16;
			const blockKey = (firstBlock[runIndex] + block / BLOCK_ROWS) * dimensions;
			if (used.length === 0) scores.fill(0, 0, padded);
			for (let next = 0; next < used.length; next += 4) {
				const group = Math.min(4, used.length - next);
				for (let member = 0; member < group; member++) {
					const dimension = used[next + member];
					const key = blockKey + dimension;
					let page = pages.find(pageOf, key);
					const resident = page >= 0;
					if (!resident) {
						page = readBefore[key] === 1 ? pages.take(pageOf, key) : -1;
						readBefore[key] = 1;
					}
					addresses[member] = page >= 0 ? PAGES_AT + page * COLUMN_PAGE_BYTES : COLUMNS_AT + member * BLOCK_ROWS;
					if (resident) pages.statistics.resident++;
					else {
						pages.statistics.read++;
						if (readSync(descriptor, memory, addresses[member], count, headerBytes(dimensions) + dimension * rows + block) !== count) throw new Error(`The column run ${run.file} is shorter than its keys`);
					}
				}
				// A group of fewer than four repeats its first column with weight 0.
				for (let member = group; member < 4; member++) addresses[member] = addresses[0];
				accumulate(SCORES_AT, addresses[0], addresses[1], addresses[2], addresses[3], padded, weights[next], weights[next + 1], weights[next + 2], weights[next + 3], next === 0 ? 0 : 1);
			}
			// Only rows above the floor as the block starts are offered (the floor only rises meanwhile); in units, rounded down, then exactly.
			const first = run.from + block;
			const found = above(SCORES_AT, padded, Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.floor(floor() / unit))), ROWS_AT);
			for (let index = 0; index < found; index++) {
				const row = rowsAbove[index];
				const score = scores[row] * unit;
				if (row >= count || score <= floor() || dead[first + row]) continue;
				best.offer(first + row, score);
			}
		}
	}
	const { slots, scores: bestScores } = best.sorted();
	return { keys: slots, scores: bestScores, error: error * (1 + 1e-3) + 1e-5 };
}
