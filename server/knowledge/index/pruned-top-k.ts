/**
 * Top-k BM25 that stops reading postings once the rest cannot change the top k (term-at-a-time
 * MaxScore, Turtle & Flood 1995, with a per-term bound on what one posting can add), giving
 * exactly the exhaustive result (SourceLexicon.rankExhaustive). See prunedTopKByTerms.
 */

/**
 * Bounds are computed in float64 and stored in float32, norms are float32, and scores are float32
 * sums of up to a few dozen terms: each is off by well under 1e-6 relatively. A bound is trusted
 * only with this much to spare, so rounding never skips a chunk that would have entered.
 */
const PRUNING_MARGIN = 1 + 1e-5;

/** Postings [start, end) of `slots` and `frequencies`, slots ascending: arrays of the index itself, or scratch a list was read into. */
export interface PostingRange {
	slots: Int32Array;
	frequencies: Uint8Array;
	start: number;
	end: number;
}

/** One chunk's (term, frequency) pairs: [start, end) of `terms` and `frequencies`. */
export interface PairRange {
	terms: Int32Array;
	frequencies: Uint8Array;
	start: number;
	end: number;
}

/** One query term's postings in one part of the index (the base or the tail). */
export interface PostingList {
	/** The query term's position in the query: scores add terms in this order. */
	queryIndex: number;
	/** The term's BM25 weight: query weight x IDF x (k1 + 1). */
	weight: number;
	/** Postings in the list: what reading it costs. */
	length: number;
	/** The largest saturation f / (f + norm) of the list's postings: weight x largestBound bounds what one posting adds. */
	largestBound: number;
	/** The postings, only when the list is scored (a lexicon opened in pieces reads them from its file then; valid until the next read). */
	read(): PostingRange;
}

export interface ScoredSlots {
	slots: number[];
	scores: number[];
}

/** The forward (chunk-major) pairs and per-slot arrays a pruned ranking reads. */
export interface RankingInput {
	live: Uint8Array;
	lengthNorms: Float32Array;
	/** A slot's pairs (valid until the next call). */
	pairsOf(slot: number): PairRange;
	/** Scratch, all zero between queries: one partial score per slot. */
	scores: Float32Array;
	/** Scratch: the slots scored. */
	touched: Int32Array;
	/** What completing one candidate from its own pairs costs, in postings scored: its pairs, and their read when they are on disk. */
	slotCost: number;
	/** Scratch, -1 between queries: a term's position in the query. */
	queryIndexOfTerm: Int32Array;
}

/**
 * Term-at-a-time MaxScore (Turtle & Flood 1995): the query's lists are scored whole, in query
 * order, into per-slot partial scores, until the bounds of the lists left add up to no more than
 * the k-th partial score. Past that point no chunk outside the partial scores can enter the top k,
 * and only those whose partial score plus what is left can still beat the k-th are completed,
 * from their own (chunk-major) pairs, instead of reading the long lists left. The caller orders
 * the terms largest bound first (SourceLexicon.weightedTerms), so what goes unread is the long
 * lists of frequent words and the light feedback terms of an expanded query. Stopping costs a pass over the slots scored and a
 * read of each candidate's pairs: it is done only when that is cheaper than the postings left.
 *
 * Exact: partial scores are the exhaustive pass's own float32 prefix sums (same order, same
 * rounding), completed term by term in query order; a chunk is dropped only when its bound,
 * widened by PRUNING_MARGIN, is at most the k-th score; ties by slot.
 */
export function prunedTopKByTerms(lists: PostingList[], weights: number[], terms: number[], input: RankingInput, limit: number): ScoredSlots {
	if (limit <= 0 || lists.length === 0) return { slots: [], scores: [] };
	const { live, lengthNorms, scores, touched } = input;
	// left[i]: the bounds of lists i.. together; postingsLeft[i]: their postings.
	const left = new Float64Array(lists.length + 1);
	const postingsLeft = new Float64Array(lists.length + 1);
	for (let index = lists.length - 1; index >= 0; index--) {
		left[index] = left[index + 1] + lists[index].weight * lists[index].largestBound;
		postingsLeft[index] = postingsLeft[index + 1] + lists[index].length;
	}

	let touchedCount = 0;
	let threshold = -1;
	let completeFrom = terms.length;
	let lastAttempt = Number.POSITIVE_INFINITY;
	// What the lists left unread can add to a candidate, once stopped.
	let remainingBound = 0;
	for (let index = 0; index < lists.length; index++) {
		const { weight } = lists[index];
		const { slots, frequencies, start, end } = lists[index].read();
		for (let position = start; position < end; position++) {
			const slot = slots[position];
			if (live[slot] === 0) continue;
			const frequency = frequencies[position];
			if (scores[slot] === 0) touched[touchedCount++] = slot;
			scores[slot] += (weight * frequency) / (frequency + lengthNorms[slot]);
		}
		// Only between terms (a term's base and tail lists go together), when the postings left are many, and again only once what is left shrank.
		const next = lists[index + 1];
		if (!next || next.queryIndex === lists[index].queryIndex) continue;
		const remaining = left[index + 1];
		if (touchedCount < limit || postingsLeft[index + 1] < 2 * touchedCount || remaining > 0.8 * lastAttempt) continue;
		lastAttempt = remaining;
		const kth = kthLargest(scores, touched, touchedCount, limit);
		if (remaining * PRUNING_MARGIN > kth) continue;
		const candidates = candidatesAbove(scores, touched, touchedCount, kth / PRUNING_MARGIN - remaining);
		if (candidates * input.slotCost >= postingsLeft[index + 1]) continue;
		threshold = kth;
		completeFrom = next.queryIndex;
		remainingBound = remaining;
		break;
	}

	const { queryIndexOfTerm } = input;
	for (let queryIndex = completeFrom; queryIndex < terms.length; queryIndex++) queryIndexOfTerm[terms[queryIndex]] = queryIndex;
	const contributions = new Float64Array(terms.length);
	const best = new TopK(limit);
	for (let index = 0; index < touchedCount; index++) {
		const slot = touched[index];
		let score = scores[slot];
		scores[slot] = 0;
		if (threshold >= 0) {
			if ((score + remainingBound) * PRUNING_MARGIN <= threshold) continue;
			const norm = lengthNorms[slot];
			const { terms: pairTerms, frequencies: pairFrequencies, start, end } = input.pairsOf(slot);
			for (let pair = start; pair < end; pair++) {
				const queryIndex = queryIndexOfTerm[pairTerms[pair]];
				if (queryIndex < 0) continue;
				const frequency = pairFrequencies[pair];
				contributions[queryIndex] = (weights[queryIndex] * frequency) / (frequency + norm);
			}
			for (let queryIndex = completeFrom; queryIndex < terms.length; queryIndex++) {
				if (contributions[queryIndex] === 0) continue;
				score = Math.fround(score + contributions[queryIndex]);
				contributions[queryIndex] = 0;
			}
		}
		best.offer(slot, score);
	}
	for (let queryIndex = completeFrom; queryIndex < terms.length; queryIndex++) queryIndexOfTerm[terms[queryIndex]] = -1;
	return best.sorted();
}

/** How many touched slots score above `floor`. */
function candidatesAbove(scores: Float32Array, touched: Int32Array, count: number, floor: number): number {
	let candidates = 0;
	for (let index = 0; index < count; index++) if (scores[touched[index]] > floor) candidates++;
	return candidates;
}

/** The `k`-th largest of the touched slots' scores (k <= count): a min-heap of the k best. */
function kthLargest(scores: Float32Array, touched: Int32Array, count: number, k: number): number {
	const heap = new Float64Array(k);
	for (let index = 0; index < k; index++) {
		let position = index;
		const value = scores[touched[index]];
		while (position > 0 && heap[(position - 1) >> 1] > value) {
			heap[position] = heap[(position - 1) >> 1];
			position = (position - 1) >> 1;
		}
		heap[position] = value;
	}
	for (let index = k; index < count; index++) {
		const value = scores[touched[index]];
		if (value <= heap[0]) continue;
		let position = 0;
		for (;;) {
			let child = 2 * position + 1;
			if (child >= k) break;
			if (child + 1 < k && heap[child + 1] < heap[child]) child++;
			if (heap[child] >= value) break;
			heap[position] = heap[child];
			position = child;
		}
		heap[position] = value;
	}
	return heap[0];
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
