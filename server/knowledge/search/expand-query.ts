/** A chunk used as pseudo-relevance feedback: its terms (lexemes, or a lexicon's term numbers) with their counts, its length, its first-pass score. */
export interface FeedbackChunk<Term = string> {
	terms: Iterable<[Term, number]>;
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
 * for a question about propellers and wings). Deterministic: ties break by term.
 * `documentFrequency` (chunks holding a term) enforces the postings budget. Terms are lexemes, or
 * any other key (a lexicon's term numbers: no string hashed per feedback term) with `order`
 * sorting them as their lexemes sort.
 */
export function expandQuery<Term = string>(
	query: Map<Term, number>,
	feedback: FeedbackChunk<Term>[],
	options: ExpansionOptions = DEFAULT_EXPANSION,
	documentFrequency: (term: Term) => number = () => 0,
	order: (left: Term, right: Term) => number = (left, right) => (left < right ? -1 : 1),
): Map<Term, number> {
	const queryTotal = [...query.values()].reduce((sum, weight) => sum + weight, 0);
	const chunks = feedback.slice(0, options.feedbackChunks).filter((chunk) => chunk.length > 0);
	if (queryTotal === 0 || chunks.length === 0 || options.originalWeight >= 1) return query;
	const best = Math.max(...chunks.map((chunk) => chunk.score));
	const relevance = new Map<Term, number>();
	for (const chunk of chunks) {
		const chunkWeight = Math.exp(chunk.score - best) / chunk.length;
		for (const [term, count] of chunk.terms) relevance.set(term, (relevance.get(term) ?? 0) + count * chunkWeight);
	}
	// The terms grouped by weight, then read heaviest first and equal weights in order of their terms
	// (the terms of one weight sorted only when one of them can still join). Most of a thousand
	// feedback terms share their weight with others (a term once in one chunk), and once the budget
	// is nearly spent few fit: one sort of them all, comparing terms on every tie, was most of RM3's
	// time at a large source. A new term with more postings than the whole budget can never join:
	// left out at once (most of the feedback chunks' terms are such frequent words there).
	const byWeight = new Map<number, [Term, number][]>();
	for (const entry of relevance) {
		if (!query.has(entry[0]) && documentFrequency(entry[0]) > options.postingsBudget) continue;
		const equal = byWeight.get(entry[1]);
		if (equal) equal.push(entry);
		else byWeight.set(entry[1], [entry]);
	}
	const weights = Float64Array.from(byWeight.keys()).sort();
	const selected: [Term, number][] = [];
	let postings = 0;
	// The query's own terms are ranked anyway: only new terms spend the budget.
	const canJoin = (term: Term) => query.has(term) || postings + documentFrequency(term) <= options.postingsBudget;
	const byTerm = (left: [Term, number], right: [Term, number]) => order(left[0], right[0]);
	for (let index = weights.length - 1; index >= 0 && selected.length < options.feedbackTerms; index--) {
		const equal = byWeight.get(weights[index]) as [Term, number][];
		if (equal.length > 1) {
			if (!equal.some(([term]) => canJoin(term))) continue;
			equal.sort(byTerm);
		}
		for (const [term, weight] of equal) {
			if (selected.length === options.feedbackTerms) break;
			if (!canJoin(term)) continue;
			if (!query.has(term)) postings += documentFrequency(term);
			selected.push([term, weight]);
		}
	}
	const selectedTotal = selected.reduce((sum, [, weight]) => sum + weight, 0);
	const expanded = new Map<Term, number>();
	for (const [term, weight] of query) expanded.set(term, (options.originalWeight * weight) / queryTotal);
	if (selectedTotal > 0) {
		for (const [term, weight] of selected) expanded.set(term, (expanded.get(term) ?? 0) + ((1 - options.originalWeight) * weight) / selectedTotal);
	}
	return expanded;
}
