import type { Steps } from "../../shared/time-slices";
import { type ColumnKernel, columnKernel } from "./column-kernel";
import { addPostingsBelow, advanceTo, type PostingRange, type ScoredSlots, TopK } from "./pruned-top-k";

/**
 * Top-k BM25 for queries made of frequent words, where MaxScore (pruned-top-k.ts) must still score
 * most of their postings: at a million chunks a query of four words each in half the chunks or
 * more scores about three million postings a pass, one at a time. Here a frequent word's postings
 * are held as two columns over the chunks (DenseColumns): its frequency, and a quantized upper
 * bound of what it adds to a chunk's score. A block of chunks is bounded four words at a time by
 * the column kernel's SIMD (column-kernel.wat, as the vector half scans its columns), the other
 * lists' postings are added exactly, and only the chunks whose bound can still pass the k-th score
 * are scored exactly, their frequencies read from the columns: a few hundred chunks a block where
 * MaxScore scored sixteen thousand.
 *
 * Exact: a chunk's score is the float32 sum of its lists' addends in the lists' order, as the
 * exhaustive ranking (SourceLexicon.rankExhaustive) adds them, and a chunk is passed over only
 * when its bound, widened by the margin, is at most the k-th score; ties by slot.
 */

/**
 * The bounds are float32 sums of float32 products: each a few float32 steps above or below the
 * real value, well under 1e-6 relatively, as are the exact scores they bound. A bound is trusted
 * only with this much to spare (twice: the bound's rounding, and the k-th score's).
 */
const MARGIN = 1 + 1e-5;

/** What the quantized impact of a frequent word's posting counts in: 127ths of the word's largest saturation (int8, for the kernel). */
export const IMPACT_STEPS = 127;

/** Chunks bounded together: four columns' blocks (64 KiB) and the block's bounds (64 KiB) stay in the processor's cache. */
export const IMPACT_BLOCK_ROWS = 16_384;

/** A frequent word's postings in the base of a lexicon, as columns over the base's slots (slots past them: absent). */
export interface DenseColumns {
	/** Each slot's frequency of the word (0: absent). */
	frequencies: Uint8Array;
	/**
	 * Each slot's saturation at the lexicon's bound average, in IMPACT_STEPS-ths of the word's bound
	 * (its largest), rounded up (0: absent): so weight x bound x impact / IMPACT_STEPS is at least
	 * what the posting adds to a score while the bounds hold.
	 */
	impacts: Int8Array;
}

/** One query term's postings in one part of the index, with its columns when it is a frequent word's base list. */
export interface ImpactList extends PostingRange {
	/** The term's BM25 weight: query weight x IDF x (k1 + 1). */
	weight: number;
	/** The largest saturation of the list's postings (the bound the impacts are relative to). */
	largestBound: number;
	/** The list as columns (its postings then need not be read: start = end), or null for a list of postings. */
	dense: DenseColumns | null;
}

/** What an impact ranking reads, and its scratch. */
export interface ImpactInput {
	/** K1 * (1 - B + B * length / average length) per slot; NaN for a dead slot (never offered). */
	lengthNorms: Float32Array;
	/** Slots in the index. */
	slotCount: number;
	scratch: ImpactScratch;
}

/** An impact ranking's kernel memory: a block's bounds (float32), the rows found above a floor (int32), four columns' blocks (int8). */
export interface ImpactScratch {
	bounds: Float32Array;
	rowsAbove: Int32Array;
	columns: Int8Array;
	accumulate: ColumnKernel["accumulate"];
	accumulateOne: ColumnKernel["accumulateOne"];
	above: ColumnKernel["above"];
}

const BOUNDS_AT = 0;
const ROWS_AT = IMPACT_BLOCK_ROWS * 4;
const COLUMNS_AT = ROWS_AT + IMPACT_BLOCK_ROWS * 4;

/** Scratch for one impact ranking at a time (a lexicon's rankings take turns). */
export function impactScratch(): ImpactScratch {
	const { buffer, accumulate, accumulateOne, above } = columnKernel(COLUMNS_AT + 4 * IMPACT_BLOCK_ROWS);
	return {
		bounds: new Float32Array(buffer, BOUNDS_AT, IMPACT_BLOCK_ROWS),
		rowsAbove: new Int32Array(buffer, ROWS_AT, IMPACT_BLOCK_ROWS),
		columns: new Int8Array(buffer, COLUMNS_AT, 4 * IMPACT_BLOCK_ROWS),
		accumulate,
		accumulateOne,
		above,
	};
}

/** The ranking of prunedTopK (exactly), bounding chunks block by block with the dense lists' columns; pauses after each block. */
export function* impactTopKSteps(lists: ImpactList[], input: ImpactInput, limit: number): Steps<ScoredSlots> {
	const best = new TopK(Math.max(0, limit));
	if (limit <= 0 || lists.length === 0) return best.sorted();
	const { slotCount, lengthNorms, scratch } = input;
	const dense = lists.filter((list) => list.dense !== null);
	const sparse = lists.filter((list) => list.dense === null);
	// Where each list of postings is: for adding a block's postings, and for looking a candidate up.
	const addedTo = Int32Array.from(sparse, (list) => list.start);
	const lookups = Int32Array.from(lists, (list) => list.start);
	let threshold = Number.NEGATIVE_INFINITY;
	for (let blockStart = 0; blockStart < slotCount; blockStart += IMPACT_BLOCK_ROWS) {
		const rows = Math.min(IMPACT_BLOCK_ROWS, slotCount - blockStart);
		const padded = Math.ceil(rows / 16) * 16;
		boundDenseLists(dense, scratch, blockStart, padded);
		for (let index = 0; index < sparse.length; index++) addedTo[index] = addPostingsBelow(sparse[index], addedTo[index], blockStart, blockStart + rows, lengthNorms, scratch.bounds);
		if (!best.full) threshold = Math.max(threshold, seededThreshold(lists, scratch.bounds, rows, blockStart, lengthNorms, limit));
		// Rows past `rows` (a last, shorter block) are bounded 0 by the zeros their columns were padded with: above no floor.
		const found = scratch.above(BOUNDS_AT, padded, Math.max(0, threshold / (MARGIN * MARGIN)), ROWS_AT);
		const { bounds, rowsAbove } = scratch;
		for (let index = 0; index < found; index++) {
			const row = rowsAbove[index];
			if (bounds[row] * MARGIN * MARGIN <= threshold) continue;
			const slot = blockStart + row;
			const score = exactScore(lists, lookups, slot, lengthNorms[slot]);
			// A dead slot's score is NaN: never offered.
			if (score === score && best.offer(slot, score) && best.full) threshold = Math.max(threshold, best.worstScore);
		}
		yield;
	}
	return best.sorted();
}

/**
 * A threshold to start a block from while the top k is not full yet (the first block): the k-th
 * best exact score of the block's k rows bounded highest. Any k chunks' k-th score is at most the
 * ranking's k-th, so a row bounded no higher cannot enter; without it every row of the first
 * block was scored exactly. -Infinity when the block has fewer than k live rows with a term.
 */
function seededThreshold(lists: ImpactList[], bounds: Float32Array, rows: number, blockStart: number, lengthNorms: Float32Array, limit: number): number {
	const highest = new TopK(limit);
	for (let row = 0; row < rows; row++) if (bounds[row] > 0) highest.offer(row, bounds[row]);
	if (!highest.full) return Number.NEGATIVE_INFINITY;
	const lookups = Int32Array.from(lists, (list) => list.start);
	let kth = Number.POSITIVE_INFINITY;
	// Rows in ascending order: lookups gallop forward.
	for (const row of highest.sorted().slots.sort((left, right) => left - right)) {
		const score = exactScore(lists, lookups, blockStart + row, lengthNorms[blockStart + row]);
		if (score !== score) return Number.NEGATIVE_INFINITY;
		kth = Math.min(kth, score);
	}
	return kth;
}

/**
 * Sets the block's bounds from the dense lists' impact columns: four lists per pass of the kernel,
 * then one per pass for the rest; 0 for every row when there is no dense list.
 */
function boundDenseLists(dense: ImpactList[], scratch: ImpactScratch, blockStart: number, padded: number): void {
	if (dense.length === 0) {
		scratch.bounds.fill(0, 0, padded);
		return;
	}
	const fours = dense.length - (dense.length % 4);
	for (let first = 0; first < dense.length; first += first < fours ? 4 : 1) {
		const count = first < fours ? 4 : 1;
		const weights = [0, 0, 0, 0];
		for (let column = 0; column < count; column++) weights[column] = copyImpacts(dense[first + column], scratch.columns, column * IMPACT_BLOCK_ROWS, blockStart, padded);
		const add = first === 0 ? 0 : 1;
		if (count === 4) scratch.accumulate(BOUNDS_AT, COLUMNS_AT, COLUMNS_AT + IMPACT_BLOCK_ROWS, COLUMNS_AT + 2 * IMPACT_BLOCK_ROWS, COLUMNS_AT + 3 * IMPACT_BLOCK_ROWS, padded, weights[0], weights[1], weights[2], weights[3], add);
		else scratch.accumulateOne(BOUNDS_AT, COLUMNS_AT, padded, weights[0], add);
	}
}

/** Copies a dense list's impacts of the block into the kernel's column at `at` (zeros past the list's slots); returns what one impact step adds at most. */
function copyImpacts(list: ImpactList, columns: Int8Array, at: number, blockStart: number, padded: number): number {
	const { impacts } = list.dense as DenseColumns;
	const end = Math.min(impacts.length, blockStart + padded);
	const copied = Math.max(0, end - blockStart);
	if (copied > 0) columns.set(impacts.subarray(blockStart, end), at);
	if (copied < padded) columns.fill(0, at + copied, at + padded);
	// Widened so the float32 product stays above the real one.
	return ((list.weight * list.largestBound) / IMPACT_STEPS) * MARGIN;
}

/**
 * A chunk's score: its lists' addends in the lists' order, summed in float32 as the exhaustive
 * ranking's scratch sums them. Slots are asked in ascending order: the lists of postings are
 * looked up by galloping forward (their positions in `lookups`), the dense ones read at the slot.
 */
function exactScore(lists: ImpactList[], lookups: Int32Array, slot: number, norm: number): number {
	let score = 0;
	for (let index = 0; index < lists.length; index++) {
		const list = lists[index];
		let frequency = 0;
		if (list.dense !== null) {
			const { frequencies } = list.dense;
			if (slot < frequencies.length) frequency = frequencies[slot];
		} else {
			const position = advanceTo(list, lookups[index], slot);
			lookups[index] = position;
			if (position < list.end && list.slots[position] === slot) frequency = list.frequencies[position];
		}
		if (frequency !== 0) score = Math.fround(score + (list.weight * frequency) / (frequency + norm));
	}
	return score;
}
