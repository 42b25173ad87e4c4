/**
 * A chunk used as pseudo-relevance feedback: its distinct terms (non-negative term numbers, a
 * lexicon's) with their counts beside them, its length, its first-pass score.
 */
export interface FeedbackChunk {
	terms: ArrayLike<number>;
	counts: ArrayLike<number>;
	length: number;
	score: number;
}

export interface ExpansionOptions {
	/** How many of the first pass's best chunks are read as feedback. */
	feedbackChunks: number;
	/** How many of their terms join the query. */
	feedbackTerms: number;
	/** Share of the final query's weight kept by the original terms (RM3's lambda). */
	originalWeight: number;
	/**
	 * Most postings the added terms may have together (their document frequencies summed): terms
	 * that would exceed it are passed over for the next ones. Bounds the second ranking pass at any
	 * source size (60k postings: about a millisecond); on Cranfield it cannot bind (40 terms of at
	 * most 1,400 chunks each), so the figures there are those of unbounded RM3.
	 */
	postingsBudget: number;
}

/**
 * Chosen on the tuning half of the Cranfield queries (bench/knowledge.ts): 10 chunks, 40 terms,
 * half the weight to the original query were best there among 3-20 chunks, 10-60 terms and
 * 0.5-0.7; the same values are near Anserini's RM3 defaults (10 documents, 10 terms, 0.5).
 */
export const DEFAULT_EXPANSION: ExpansionOptions = Object.freeze({ feedbackChunks: 10, feedbackTerms: 40, originalWeight: 0.5, postingsBudget: 60_000 });

/**
 * RM3 query expansion (Lavrenko & Croft 2001, relevance models; RM3 as in Abdul-Jaleel et al.
 * 2004): the best chunks of a first ranking are assumed relevant; each term is weighted by its
 * share of each chunk's length times that chunk's weight, the top terms are normalised to sum 1
 * and interpolated with the original query (also normalised). A chunk's weight is exp(score -
 * best score): BM25 scores read as log-likelihoods, so the best chunk counts most and a chunk
 * scoring a few points lower barely counts (uniform or linear weights did worse on the tuning
 * half). This finds the vocabulary of relevant text that the question did not use ("slipstream"
 * for a question about propellers and wings). Deterministic: ties break by term, as `order` sorts
 * terms (a lexicon's term numbers sort as their lexemes do). `documentFrequency` (chunks holding a
 * term) enforces the postings budget. The query may hold terms of its own (negative numbers: words
 * no chunk has); they keep their share.
 *
 * In typed arrays: at a large source the feedback holds a thousand and more distinct terms, and a
 * map of them (with an array per entry) was most of what a search allocated.
 */
export function expandQuery(
	query: Map<number, number>,
	feedback: FeedbackChunk[],
	options: ExpansionOptions = DEFAULT_EXPANSION,
	documentFrequency: (term: number) => number = () => 0,
	order: (left: number, right: number) => number = (left, right) => left - right,
): Map<number, number> {
	const queryTotal = [...query.values()].reduce((sum, weight) => sum + weight, 0);
	const chunks = feedback.slice(0, options.feedbackChunks).filter((chunk) => chunk.length > 0);
	if (queryTotal === 0 || chunks.length === 0 || options.originalWeight >= 1) return query;
	const { terms, weights } = relevanceOf(chunks);
	// The terms grouped by weight, then read heaviest first and equal weights in order of their terms
	// (the terms of one weight sorted only when one of them can still join). Most of a thousand
	// feedback terms share their weight with others (a term once in one chunk), and once the budget
	// is nearly spent few fit: one sort of them all, comparing terms on every tie, was most of RM3's
	// time at a large source. A new term with more postings than the whole budget can never join:
	// left out at once (most of the feedback chunks' terms are such frequent words there). A term
	// spends its postings of the budget; the query's own terms spend nothing (they are ranked anyway).
	const spends = new Float64Array(terms.length);
	const candidates = new Int32Array(terms.length);
	let candidateCount = 0;
	for (let index = 0; index < terms.length; index++) {
		spends[index] = query.has(terms[index]) ? 0 : documentFrequency(terms[index]);
		if (spends[index] <= options.postingsBudget) candidates[candidateCount++] = index;
	}
	const groups = groupByWeight(candidates.subarray(0, candidateCount), weights);
	const selected: [number, number][] = [];
	let postings = 0;
	for (let group = groups.count - 1; group >= 0 && selected.length < options.feedbackTerms; group--) {
		const from = groups.starts[group];
		const to = groups.starts[group + 1];
		if (to - from > 1) {
			let smallest = Number.POSITIVE_INFINITY;
			for (let member = from; member < to; member++) smallest = Math.min(smallest, spends[groups.members[member]]);
			if (postings + smallest > options.postingsBudget) continue;
			groups.members.subarray(from, to).sort((left, right) => order(terms[left], terms[right]));
		}
		for (let member = from; member < to && selected.length < options.feedbackTerms; member++) {
			const index = groups.members[member];
			if (postings + spends[index] > options.postingsBudget) continue;
			postings += spends[index];
			selected.push([terms[index], weights[index]]);
		}
	}
	const selectedTotal = selected.reduce((sum, [, weight]) => sum + weight, 0);
	const expanded = new Map<number, number>();
	for (const [term, weight] of query) expanded.set(term, (options.originalWeight * weight) / queryTotal);
	if (selectedTotal > 0) {
		for (const [term, weight] of selected) expanded.set(term, (expanded.get(term) ?? 0) + ((1 - options.originalWeight) * weight) / selectedTotal);
	}
	return expanded;
}

/** A power of two at least twice `count`: an open-addressing table that stays at most half full. */
const tableSize = (count: number) => 2 ** Math.max(4, Math.ceil(Math.log2(count * 2 + 1)));

/** A 32-bit integer's slot in a table of `mask + 1` (Fibonacci hashing). */
const slotOf = (key: number, mask: number) => Math.imul(key, 0x9e3779b1) & mask;

/**
 * Each distinct term of the chunks with its relevance: the sum, over the chunks in their order, of
 * its count times the chunk's weight (added up in the order a map's would be, so to the bit), in
 * order of first appearance. Hashed into typed arrays: no entry or number allocated per term.
 */
function relevanceOf(chunks: FeedbackChunk[]): { terms: Int32Array; weights: Float64Array } {
	const best = Math.max(...chunks.map((chunk) => chunk.score));
	let pairCount = 0;
	for (const chunk of chunks) pairCount += chunk.terms.length;
	const table = new Int32Array(tableSize(pairCount)).fill(-1);
	const mask = table.length - 1;
	const terms = new Int32Array(pairCount);
	const weights = new Float64Array(pairCount);
	let count = 0;
	for (const chunk of chunks) {
		const chunkWeight = Math.exp(chunk.score - best) / chunk.length;
		const { terms: chunkTerms, counts } = chunk;
		for (let index = 0; index < chunkTerms.length; index++) {
			const term = chunkTerms[index];
			const amount = counts[index] * chunkWeight;
			for (let slot = slotOf(term, mask); ; slot = (slot + 1) & mask) {
				const entry = table[slot];
				if (entry < 0) {
					table[slot] = count;
					terms[count] = term;
					weights[count++] = amount;
					break;
				}
				if (terms[entry] === term) {
					weights[entry] += amount;
					break;
				}
			}
		}
	}
	return { terms: terms.subarray(0, count), weights: weights.subarray(0, count) };
}

/**
 * The candidates (indexes into `weights`) bucketed by weight: group g, the g-th smallest distinct
 * weight, holds members[starts[g] .. starts[g + 1]), in the candidates' order. Distinct weights are
 * few (a term once in one chunk weighs that chunk's weight): they are found by hashing their bits,
 * and only they are sorted.
 */
function groupByWeight(candidates: Int32Array, weights: Float64Array): { count: number; starts: Int32Array; members: Int32Array } {
	const table = new Int32Array(tableSize(candidates.length)).fill(-1);
	const mask = table.length - 1;
	const bits = new Float64Array(1);
	const halves = new Int32Array(bits.buffer);
	const distinct = new Float64Array(candidates.length);
	const groupOf = new Int32Array(candidates.length);
	let count = 0;
	for (let index = 0; index < candidates.length; index++) {
		const weight = weights[candidates[index]];
		bits[0] = weight;
		for (let slot = slotOf(halves[0] ^ Math.imul(halves[1], 0x85ebca6b), mask); ; slot = (slot + 1) & mask) {
			const group = table[slot];
			if (group < 0) {
				table[slot] = count;
				distinct[count] = weight;
				groupOf[index] = count++;
				break;
			}
			if (distinct[group] === weight) {
				groupOf[index] = group;
				break;
			}
		}
	}
	// Each group's rank among the distinct weights, smallest first.
	const sorted = distinct.slice(0, count).sort();
	const rankOf = new Int32Array(count);
	for (let group = 0; group < count; group++) {
		let from = 0;
		let to = count - 1;
		while (from < to) {
			const middle = (from + to) >>> 1;
			if (sorted[middle] < distinct[group]) from = middle + 1;
			else to = middle;
		}
		rankOf[group] = from;
	}
	const starts = new Int32Array(count + 1);
	for (let index = 0; index < candidates.length; index++) starts[rankOf[groupOf[index]] + 1]++;
	for (let rank = 0; rank < count; rank++) starts[rank + 1] += starts[rank];
	const members = new Int32Array(candidates.length);
	const filled = starts.slice(0, count);
	for (let index = 0; index < candidates.length; index++) members[filled[rankOf[groupOf[index]]]++] = candidates[index];
	return { count, starts, members };
}
