import { runToEnd, type Steps } from "../../shared/time-slices";
import { type ColumnKernel, columnKernel } from "./column-kernel";

/**
 * Top-k BM25 that reads the long posting lists of frequent words only where a chunk could still
 * enter the top k (MaxScore, Turtle & Flood 1995, document-at-a-time in windows of slots as
 * Lucene's MaxScoreBulkScorer does it), giving exactly the exhaustive result
 * (SourceLexicon.rankExhaustive). See prunedTopK.
 */

/**
 * Bounds are computed in float64 and stored in float32, norms are float32, and scores are float32
 * sums of up to a few dozen terms: each is off by well under 1e-6 relatively. A bound is trusted
 * only with this much to spare, so rounding never skips a chunk that would have entered.
 */
const PRUNING_MARGIN = 1 + 1e-5;

/**
 * Slots scored together: the essential lists are added term by term into a window's scores, then
 * the window's chunks are completed one by one. Small enough for its scores to stay in the
 * processor's cache and for the threshold to rise often; large enough that a window costs little
 * beyond its postings.
 */
export const WINDOW_SLOTS = 1024;

/**
 * What looking a chunk up in a list costs (a gallop), in postings scanned: 2 to 16 ranked the
 * same within noise on the 100k-chunk bench corpus (mean 2.0-2.2 ms with RM3). Once a scan scored
 * every posting without a branch (a candidate's lists are as likely marked as not), 2 took 19% less
 * than 8 over bench:knowledge-scale's 400 queries at 1M chunks (1 and 4: 13% and 12% less), and 16%
 * less at 100k.
 */
const LOOKUP_COST = 2;

/** Postings [start, end) of `slots` and `frequencies`, slots ascending: arrays of the index itself, or scratch a list was read into. */
export interface PostingRange {
	slots: Int32Array;
	frequencies: Uint8Array;
	start: number;
	end: number;
}

/** One query term's postings in one part of the index (the base or the tail), read. */
export interface PostingList extends PostingRange {
	/** The term's BM25 weight: query weight x IDF x (k1 + 1). */
	weight: number;
	/** The largest saturation f / (f + norm) of the list's postings: weight x largestBound bounds what one posting adds. */
	largestBound: number;
}

export interface ScoredSlots {
	slots: number[];
	scores: number[];
}

/** The per-slot arrays a ranking reads, and its scratch. */
export interface RankingInput {
	/**
	 * K1 * (1 - B + B * length / average length) per slot; NaN for a dead slot, so its postings add
	 * NaN (above no floor or threshold: it is never marked nor offered) without a test of liveness
	 * per posting.
	 */
	lengthNorms: Float32Array;
	/** Slots in the index: postings are below it. */
	slotCount: number;
	window: RankingWindow;
}

/** A ranking's scratch: a window's partial scores (all zero between queries) and the kernel that finds those above a threshold. */
export interface RankingWindow {
	scores: Float32Array;
	rowsAbove: Int32Array;
	above: ColumnKernel["above"];
}

/** Where a RankingWindow's kernel memory holds its scores (float32) and the offsets above a threshold (int32). */
const WINDOW_SCORES_AT = 0;
const ROWS_ABOVE_AT = WINDOW_SLOTS * 4;

/** Scratch for one ranking at a time (a lexicon's rankings take turns). */
export function rankingWindow(): RankingWindow {
	const { buffer, above } = columnKernel(ROWS_ABOVE_AT + WINDOW_SLOTS * 4);
	return { scores: new Float32Array(buffer, WINDOW_SCORES_AT, WINDOW_SLOTS), rowsAbove: new Int32Array(buffer, ROWS_ABOVE_AT, WINDOW_SLOTS), above };
}

/**
 * MaxScore, document at a time in windows of slots. The lists come in the order the exhaustive
 * ranking adds them (SourceLexicon.weightedTerms: most weight per posting first), and a chunk's score is
 * always their float32 sum in that order. Once the top k is full, its k-th score is a threshold:
 * the longest suffix of lists whose bounds add up to no more than it is "non-essential" (a chunk
 * found in those lists alone cannot enter the top k), so chunks are only drawn from the essential
 * lists before them; a chunk's non-essential lists are looked up by galloping forward in them
 * (slots ascend), in order, and the lookups stop as soon as its score plus what is left cannot
 * reach the threshold; and a chunk is drawn only if one of its essential postings could lift it
 * past the threshold with every other list at its bound. For a query of frequent words, only the
 * rarest word's list is read whole, and a few of its chunks in a thousand are drawn; the feedback
 * terms of an expanded query (few postings, by the expansion's budget) come before the frequent
 * words, so those are what is looked up for a few chunks only. Where
 * a window has so many candidates that looking each up would cost more than its non-essential
 * postings, those are added to the candidates list by list instead (the same sums).
 *
 * Exact: the same float32 sums in the same order as the exhaustive pass; a chunk is dropped only
 * when its bound, widened by PRUNING_MARGIN, is at most the k-th score (so strictly below it);
 * ties by slot (the top k keeps the lower slot).
 */
export function prunedTopK(lists: PostingList[], input: RankingInput, limit: number): ScoredSlots {
	return runToEnd(prunedTopKSteps(lists, input, limit));
}

/** prunedTopK, pausing after each window of slots (time-slices.ts): a long ranking can give the event loop back between windows. */
export function* prunedTopKSteps(lists: PostingList[], input: RankingInput, limit: number): Steps<ScoredSlots> {
	const best = new TopK(Math.max(0, limit));
	if (limit <= 0 || lists.length === 0) return best.sorted();
	const { slotCount } = input;
	const count = lists.length;
	// boundFrom[i]: what lists i.. can add to a chunk together.
	const boundFrom = new Float64Array(count + 1);
	for (let index = count - 1; index >= 0; index--) boundFrom[index] = boundFrom[index + 1] + lists[index].weight * lists[index].largestBound;
	const cursors = Int32Array.from(lists, (list) => list.start);
	const marks = new Int32Array(WINDOW_SLOTS >> 5);
	let threshold = Number.NEGATIVE_INFINITY;
	let essential = count;

	// Small functions of one shape each: V8 optimizes them after a few queries, where one large
	// function was deoptimized and recompiled for tens of queries (each run meanwhile unoptimized).
	// The per-posting and per-candidate loops are in plain functions, not in this generator: V8
	// does not replace a running generator with its optimized code, plain functions it does.
	for (;;) {
		while (essential > 0 && boundFrom[essential - 1] * PRUNING_MARGIN <= threshold) essential--;
		const windowStart = nextSlot(lists, cursors, essential, slotCount);
		if (windowStart >= slotCount) break;
		const windowEnd = Math.min(slotCount, windowStart + WINDOW_SLOTS);
		// A posting marks its chunk only if, with every other list at its bound, the chunk could still
		// pass the threshold (widened twice by the margin, for the rounding of these sums): a chunk no
		// essential posting marks cannot, since its partial scores are each at most their list's floor
		// and the essential lists' bounds alone exceed the threshold. Unmarked postings' scores are
		// added all the same: a chunk another list marks needs them.
		const floorBase = threshold / (PRUNING_MARGIN * PRUNING_MARGIN) - boundFrom[0];
		for (let index = 0; index < essential; index++) {
			const list = lists[index];
			cursors[index] = addPostings(list, cursors[index], windowStart, windowEnd, input, marks, floorBase + list.weight * list.largestBound);
		}

		// Many candidates and few non-essential postings here: adding those postings to the candidates
		// (in list order, as the exhaustive pass) costs less than looking each candidate up in each list.
		let postingsHere = 0;
		for (let index = essential; index < count; index++) postingsHere += ((lists[index].end - cursors[index]) * (windowEnd - windowStart)) / (slotCount - windowStart);
		const marked = countMarks(marks);
		const scanned = marked * (count - essential) * LOOKUP_COST > postingsHere;
		if (scanned) for (let index = essential; index < count; index++) cursors[index] = addRemainingPostings(lists[index], cursors[index], windowStart, windowEnd, input);

		if (scanned && best.full && marked > DENSE_MARKS) {
			threshold = offerScoredWindow(input.window, windowEnd - windowStart, windowStart, best, threshold);
			marks.fill(0);
		} else threshold = offerWindow(lists, cursors, essential, boundFrom, marks, windowStart, scanned, input, best, threshold);
		// Unmarked chunks' partial scores are left in the window: cleared for the next one.
		input.window.scores.fill(0, 0, windowEnd - windowStart);
		yield;
	}
	return best.sorted();
}

/**
 * Completes the window's marked chunks (their essential lists' partial scores in windowScores) and
 * offers those that can still enter to `best`, clearing the marks; returns the threshold.
 */
function offerWindow(
	lists: PostingList[],
	cursors: Int32Array,
	essential: number,
	boundFrom: Float64Array,
	marks: Int32Array,
	windowStart: number,
	scanned: boolean,
	input: RankingInput,
	best: TopK,
	threshold: number,
): number {
	const { lengthNorms } = input;
	const windowScores = input.window.scores;
	let current = threshold;
	for (let word = 0; word < marks.length; word++) {
		let bits = marks[word];
		if (bits === 0) continue;
		marks[word] = 0;
		while (bits !== 0) {
			const offset = (word << 5) | (31 - Math.clz32(bits & -bits));
			bits &= bits - 1;
			const slot = windowStart + offset;
			let score = windowScores[offset];
			if (!scanned) {
				if ((score + boundFrom[essential]) * PRUNING_MARGIN <= current) continue;
				score = completeScore(lists, cursors, essential, slot, score, lengthNorms[slot], boundFrom, current);
				if (score < 0) continue;
			}
			if (best.offer(slot, score) && best.full) current = best.worstScore;
		}
	}
	return current;
}

/** Marked slots in a window past which reading all its scores costs less than visiting its marks one by one. */
const DENSE_MARKS = WINDOW_SLOTS / 8;

/**
 * offerWindow for a window whose chunks were scored in full (scanned) once the top k is full: an
 * unmarked chunk's score is at most the threshold (divided by the margin twice: its partial score in
 * each essential list is at most that list's floor), so the window's scores above the threshold are
 * offered, found 16 at a time by the column kernel (where many are marked, visiting marks a bit at a
 * time, or scores one by one, costs more). Slots ascend, so a score equal to the threshold would
 * lose its tie: only higher ones are offered. The threshold is a float32 sum (or -Infinity), so the
 * kernel's float32 comparison is exact; a dead slot's NaN is above nothing.
 */
function offerScoredWindow(window: RankingWindow, length: number, windowStart: number, best: TopK, threshold: number): number {
	const { scores, rowsAbove } = window;
	// Rows past `length` (a last, shorter window) hold zeros: never above a full top k's threshold, skipped all the same.
	const found = window.above(WINDOW_SCORES_AT, Math.ceil(length / 16) * 16, threshold, ROWS_ABOVE_AT);
	let current = threshold;
	for (let index = 0; index < found; index++) {
		const offset = rowsAbove[index];
		const score = scores[offset];
		if (offset < length && score > current && best.offer(windowStart + offset, score)) current = best.worstScore;
	}
	return current;
}

/** The first slot left in the first `essential` lists (`slotCount` when they are all read). */
function nextSlot(lists: PostingList[], cursors: Int32Array, essential: number, slotCount: number): number {
	let slot = slotCount;
	for (let index = 0; index < essential; index++) {
		const list = lists[index];
		if (cursors[index] < list.end && list.slots[cursors[index]] < slot) slot = list.slots[cursors[index]];
	}
	return slot;
}

/**
 * Adds a list's postings in [windowStart, windowEnd) to the window's scores and marks those scoring
 * above `floor` (a dead slot's score is NaN: never); returns where the list stops.
 */
function addPostings(list: PostingList, from: number, windowStart: number, windowEnd: number, input: RankingInput, marks: Int32Array, floor: number): number {
	const { slots, frequencies, end, weight } = list;
	const { lengthNorms } = input;
	const windowScores = input.window.scores;
	let position = from;
	// The marks of the word being filled are gathered here and stored when the postings leave it: or-ing
	// each into the array made every posting of a dense list wait for the previous one's store (32
	// slots share a word), which took a third of its time.
	let word = 0;
	let bits = 0;
	for (; position < end; position++) {
		const slot = slots[position];
		if (slot >= windowEnd) break;
		const frequency = frequencies[position];
		const offset = slot - windowStart;
		const partial = (weight * frequency) / (frequency + lengthNorms[slot]);
		windowScores[offset] += partial;
		if (offset >> 5 !== word) {
			marks[word] |= bits;
			word = offset >> 5;
			bits = 0;
		}
		// Without a branch: whether a posting clears the floor is a coin toss the processor cannot predict.
		bits |= +(partial > floor) << (offset & 31);
	}
	marks[word] |= bits;
	return position;
}

/**
 * Adds a non-essential list's postings in [windowStart, windowEnd) to the window's scores, of every
 * chunk: a marked one's needs them, an unmarked one's stays below the threshold all the same (see
 * offerScoredWindow), and adding them costs less than testing each posting's mark. Returns where
 * the list stops.
 */
function addRemainingPostings(list: PostingList, from: number, windowStart: number, windowEnd: number, input: RankingInput): number {
	return addPostingsBelow(list, advanceTo(list, from, windowStart), windowStart, windowEnd, input.lengthNorms, input.window.scores);
}

/**
 * Adds a list's BM25 addends, from position `from` up to its first slot at or past `end`, to
 * `scores` (slot - start); returns where the list stops. Also the impact ranking's, for its lists
 * of postings (impact-top-k.ts).
 */
export function addPostingsBelow(list: PostingRange & { weight: number }, from: number, start: number, end: number, lengthNorms: Float32Array, scores: Float32Array): number {
	const { slots, frequencies, weight } = list;
	let position = from;
	for (; position < list.end; position++) {
		const slot = slots[position];
		if (slot >= end) break;
		const frequency = frequencies[position];
		scores[slot - start] += (weight * frequency) / (frequency + lengthNorms[slot]);
	}
	return position;
}

/**
 * A candidate's score with lists `essential`.. looked up, in order (their cursors move to it); -1
 * as soon as what is left cannot lift it past the threshold.
 */
function completeScore(lists: PostingList[], cursors: Int32Array, essential: number, slot: number, partial: number, norm: number, boundFrom: Float64Array, threshold: number): number {
	let score = partial;
	for (let index = essential; index < lists.length; index++) {
		const list = lists[index];
		const position = advanceTo(list, cursors[index], slot);
		cursors[index] = position;
		if (position < list.end && list.slots[position] === slot) {
			const frequency = list.frequencies[position];
			score = Math.fround(score + (list.weight * frequency) / (frequency + norm));
		}
		if ((score + boundFrom[index + 1]) * PRUNING_MARGIN <= threshold) return -1;
	}
	return score;
}

/** Slots marked in the window. */
function countMarks(marks: Int32Array): number {
	let count = 0;
	for (let word = 0; word < marks.length; word++) {
		let bits = marks[word] - ((marks[word] >>> 1) & 0x55555555);
		bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
		count += (((bits + (bits >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
	}
	return count;
}

/** The first position at or after `from` whose slot is `slot` or more (`end` if none): galloping, then a binary search. */
export function advanceTo(list: PostingRange, from: number, slot: number): number {
	const { slots, end } = list;
	if (from >= end || slots[from] >= slot) return from;
	let low = from;
	let step = 1;
	let high = from + 1;
	while (high < end && slots[high] < slot) {
		low = high;
		step *= 2;
		high = from + step;
	}
	if (high > end) high = end;
	// slots[low] < slot, and slots[high] >= slot or high = end.
	while (high - low > 1) {
		const middle = (low + high) >>> 1;
		if (slots[middle] < slot) low = middle;
		else high = middle;
	}
	return high;
}

/**
 * The best `limit` (slot, score) pairs offered, a binary heap whose root is the worst: lowest
 * score, then highest slot. Also the column scan's (vector-columns.ts), whose slots are keys.
 */
export class TopK {
	private readonly slots: Int32Array;
	private readonly scores: Float64Array;
	private size = 0;

	constructor(private readonly limit: number) {
		this.slots = new Int32Array(limit);
		this.scores = new Float64Array(limit);
	}

	get full(): boolean {
		return this.size === this.limit;
	}

	get worstScore(): number {
		return this.scores[0];
	}

	/** Keeps (slot, score) if it ranks above the worst held, or there is room. */
	offer(slot: number, score: number): boolean {
		if (this.size < this.limit) {
			let index = this.size++;
			while (index > 0) {
				const parent = (index - 1) >> 1;
				if (!worse(slot, score, this.slots[parent], this.scores[parent])) break;
				this.slots[index] = this.slots[parent];
				this.scores[index] = this.scores[parent];
				index = parent;
			}
			this.slots[index] = slot;
			this.scores[index] = score;
			return true;
		}
		if (!worse(this.slots[0], this.scores[0], slot, score)) return false;
		let index = 0;
		for (;;) {
			const left = 2 * index + 1;
			if (left >= this.size) break;
			const right = left + 1;
			const child = right < this.size && worse(this.slots[right], this.scores[right], this.slots[left], this.scores[left]) ? right : left;
			if (!worse(this.slots[child], this.scores[child], slot, score)) break;
			this.slots[index] = this.slots[child];
			this.scores[index] = this.scores[child];
			index = child;
		}
		this.slots[index] = slot;
		this.scores[index] = score;
		return true;
	}

	sorted(): ScoredSlots {
		const order = Array.from({ length: this.size }, (_, index) => index).sort((left, right) => this.scores[right] - this.scores[left] || this.slots[left] - this.slots[right]);
		return { slots: order.map((index) => this.slots[index]), scores: order.map((index) => this.scores[index]) };
	}
}

/** Whether (slot, score) ranks below (otherSlot, otherScore): lower score, or the same score and a higher slot. */
function worse(slot: number, score: number, otherSlot: number, otherScore: number): boolean {
	return score < otherScore || (score === otherScore && slot > otherSlot);
}
