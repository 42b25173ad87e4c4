/**
 * Top-k BM25 without scoring every posting: MaxScore (Turtle & Flood 1995) over postings split into
 * blocks with a per-block upper bound (block-max, Ding & Suel 2011), as Lucene does since 8.
 *
 * The query's posting lists are ordered by their upper bound (query weight times the list's
 * largest block bound). Once k chunks are held, the lists whose bounds together cannot beat the
 * k-th score are "non-essential": a chunk found only in them cannot enter the top k, so candidates
 * come from the essential lists alone, and the others are looked up (skipping whole blocks) only
 * while the candidate can still make it. Before a candidate is scored, the essential lists'
 * current block bounds bound every chunk up to the nearest block end: when that window cannot
 * beat the k-th score, it is skipped whole. Low-weight lists (RM3's feedback terms) turn
 * non-essential first, so expansion costs little more than the original query.
 *
 * The result is exactly the exhaustive one (SourceLexicon.rankExhaustive): each chunk's score is
 * summed in the same order with the same float32 rounding, chunks are visited in slot order (so an
 * equal score never displaces a lower slot: the same tie-break), and a chunk is skipped only when
 * its bound, widened by PRUNING_MARGIN for rounding, is at most the k-th score.
 */

/** Postings per block: one bound per 128 postings, the usual size (Lucene, PISA). */
export const BLOCK_SHIFT = 7;
export const BLOCK_SIZE = 1 << BLOCK_SHIFT;

/**
 * Bounds are computed in float64 and stored in float32, norms are float32, and scores are float32
 * sums of up to a few dozen terms: each is off by well under 1e-6 relatively. A bound is trusted
 * only with this much to spare, so rounding never skips a chunk that would have entered.
 */
const PRUNING_MARGIN = 1 + 1e-5;

const NO_SLOT = 0x7fffffff;

/** One query term's postings in one part of the index (the base or the tail), slots ascending. */
export interface PostingList {
	/** The query term's position in the query: scores add terms in this order. */
	queryIndex: number;
	/** The term's BM25 weight: query weight x IDF x (k1 + 1). */
	weight: number;
	slots: Int32Array;
	frequencies: Uint8Array;
	start: number;
	end: number;
	/** Block i (postings start + 128 i ...) has its bound (largest saturation f / (f + norm)) at bounds[boundsStart + i]. */
	bounds: Float32Array;
	boundsStart: number;
	/** Largest bound of the list's blocks. */
	largestBound: number;
}

interface Cursor extends PostingList {
	position: number;
	/** weight x largestBound. */
	maximum: number;
}

export interface ScoredSlots {
	slots: number[];
	scores: number[];
}

/**
 * The best `limit` live slots for `lists` (best first, ties by slot), each scored
 * sum over terms of weight x f / (f + lengthNorms[slot]).
 */
export function prunedTopK(lists: PostingList[], queryTerms: number, live: Uint8Array, lengthNorms: Float32Array, limit: number): ScoredSlots {
	if (limit <= 0 || lists.length === 0) return { slots: [], scores: [] };
	const cursors: Cursor[] = lists
		.filter((list) => list.end > list.start)
		.map((list) => ({ ...list, position: list.start, maximum: list.weight * list.largestBound }))
		.sort((left, right) => left.maximum - right.maximum || left.queryIndex - right.queryIndex);
	const count = cursors.length;
	// upTo[i]: the bounds of cursors 0..i together.
	const upTo = new Float64Array(count);
	for (let index = 0, sum = 0; index < count; index++) upTo[index] = sum += cursors[index].maximum;

	const heap = new TopK(limit);
	let threshold = -1;
	let firstEssential = 0;
	const contributions = new Float64Array(queryTerms);
	const contributing = new Int32Array(queryTerms);

	for (;;) {
		let candidate = NO_SLOT;
		for (let index = firstEssential; index < count; index++) {
			const cursor = cursors[index];
			if (cursor.position < cursor.end && cursor.slots[cursor.position] < candidate) candidate = cursor.slots[cursor.position];
		}
		if (candidate === NO_SLOT) break;
		const nonEssential = firstEssential > 0 ? upTo[firstEssential - 1] : 0;

		if (heap.full) {
			// Every chunk from the candidate to the nearest end of an essential list's current block is bounded by those blocks.
			let windowBound = nonEssential;
			let windowEnd = NO_SLOT;
			for (let index = firstEssential; index < count; index++) {
				const cursor = cursors[index];
				if (cursor.position >= cursor.end) continue;
				const block = (cursor.position - cursor.start) >> BLOCK_SHIFT;
				windowBound += cursor.weight * cursor.bounds[cursor.boundsStart + block];
				const last = cursor.slots[Math.min(cursor.start + ((block + 1) << BLOCK_SHIFT), cursor.end) - 1];
				if (last < windowEnd) windowEnd = last;
			}
			if (windowBound * PRUNING_MARGIN <= threshold) {
				for (let index = firstEssential; index < count; index++) advance(cursors[index], windowEnd + 1);
				continue;
			}
		}

		if (live[candidate] === 0) {
			for (let index = firstEssential; index < count; index++) {
				const cursor = cursors[index];
				if (cursor.position < cursor.end && cursor.slots[cursor.position] === candidate) cursor.position++;
			}
			continue;
		}

		const norm = lengthNorms[candidate];
		let partial = 0;
		let touched = 0;
		for (let index = firstEssential; index < count; index++) {
			const cursor = cursors[index];
			if (cursor.position >= cursor.end || cursor.slots[cursor.position] !== candidate) continue;
			const frequency = cursor.frequencies[cursor.position++];
			const contribution = (cursor.weight * frequency) / (frequency + norm);
			contributions[cursor.queryIndex] = contribution;
			contributing[touched++] = cursor.queryIndex;
			partial += contribution;
		}
		let pruned = false;
		for (let index = firstEssential - 1; index >= 0; index--) {
			if ((partial + upTo[index]) * PRUNING_MARGIN <= threshold) {
				pruned = true;
				break;
			}
			const cursor = cursors[index];
			advance(cursor, candidate);
			if (cursor.position >= cursor.end || cursor.slots[cursor.position] !== candidate) continue;
			const frequency = cursor.frequencies[cursor.position];
			const contribution = (cursor.weight * frequency) / (frequency + norm);
			contributions[cursor.queryIndex] = contribution;
			contributing[touched++] = cursor.queryIndex;
			partial += contribution;
		}
		if (!pruned) {
			// As the exhaustive pass adds them: term by term in query order, rounded to float32 after each.
			const order = contributing.subarray(0, touched).sort();
			let score = 0;
			for (let index = 0; index < touched; index++) score = Math.fround(score + contributions[order[index]]);
			if (heap.offer(candidate, score) && heap.full) {
				threshold = heap.worstScore;
				while (firstEssential < count && upTo[firstEssential] * PRUNING_MARGIN <= threshold) firstEssential++;
			}
		}
		for (let index = 0; index < touched; index++) contributions[contributing[index]] = 0;
	}
	return heap.sorted();
}

/** Moves the cursor to its first posting at or after `target`, skipping whole blocks. */
function advance(cursor: Cursor, target: number): void {
	const { slots, start, end } = cursor;
	let position = cursor.position;
	if (position >= end || slots[position] >= target) return;
	let blockEnd = start + ((((position - start) >> BLOCK_SHIFT) + 1) << BLOCK_SHIFT);
	while (blockEnd < end && slots[blockEnd - 1] < target) {
		position = blockEnd;
		blockEnd += BLOCK_SIZE;
	}
	let high = Math.min(blockEnd, end);
	while (position < high) {
		const middle = (position + high) >> 1;
		if (slots[middle] < target) position = middle + 1;
		else high = middle;
	}
	cursor.position = position;
}

/** The best `limit` (slot, score) pairs offered, a binary heap whose root is the worst: lowest score, then highest slot. */
class TopK {
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

	/** Slots arrive ascending: one with the worst held score would lose the tie, so only a higher score enters a full heap. */
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
		if (score <= this.scores[0]) return false;
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
