/** A chunk used as pseudo-relevance feedback: its lexemes with their counts, its length, its first-pass score. */
export interface FeedbackChunk {
	terms: Iterable<[string, number]>;
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
}

/**
 * Chosen on the tuning half of the Cranfield queries (bench/knowledge.ts): 10 chunks, 40 terms,
 * half the weight to the original query were best there among 3-20 chunks, 10-60 terms and
 * 0.5-0.7; the same values are near Anserini's RM3 defaults (10 documents, 10 terms, 0.5).
 */
export const DEFAULT_EXPANSION: ExpansionOptions = { feedbackChunks: 10, feedbackTerms: 40, originalWeight: 0.5 };

/**
 * RM3 query expansion (Lavrenko & Croft 2001, relevance models; RM3 as in Abdul-Jaleel et al.
 * 2004): the best chunks of a first ranking are assumed relevant; each term is weighted by its
 * share of each chunk's length times that chunk's weight, the top terms are normalised to sum 1
 * and interpolated with the original query (also normalised). A chunk's weight is exp(score -
 * best score): BM25 scores read as log-likelihoods, so the best chunk counts most and a chunk
 * scoring a few points lower barely counts (uniform or linear weights did worse on the tuning
 * half). This finds the vocabulary of relevant text that the question did not use ("slipstream"
 * for a question about propellers and wings). Deterministic: ties break by term.
 */
export function expandQuery(query: Map<string, number>, feedback: FeedbackChunk[], options: ExpansionOptions = DEFAULT_EXPANSION): Map<string, number> {
	const queryTotal = [...query.values()].reduce((sum, weight) => sum + weight, 0);
	const chunks = feedback.slice(0, options.feedbackChunks).filter((chunk) => chunk.length > 0);
	if (queryTotal === 0 || chunks.length === 0 || options.originalWeight >= 1) return query;
	const best = Math.max(...chunks.map((chunk) => chunk.score));
	const relevance = new Map<string, number>();
	for (const chunk of chunks) {
		const chunkWeight = Math.exp(chunk.score - best) / chunk.length;
		for (const [term, count] of chunk.terms) relevance.set(term, (relevance.get(term) ?? 0) + count * chunkWeight);
	}
	const selected = [...relevance].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1)).slice(0, options.feedbackTerms);
	const selectedTotal = selected.reduce((sum, [, weight]) => sum + weight, 0);
	const expanded = new Map<string, number>();
	for (const [term, weight] of query) expanded.set(term, (options.originalWeight * weight) / queryTotal);
	if (selectedTotal > 0) {
		for (const [term, weight] of selected) expanded.set(term, (expanded.get(term) ?? 0) + ((1 - options.originalWeight) * weight) / selectedTotal);
	}
	return expanded;
}
