export interface ScoredChunk {
	chunkId: string;
	score: number;
}

/**
 * Weight of the lexical list in the fusion (the vector list gets the rest). The best value on the
 * tuning half of the Cranfield queries (bench/knowledge.ts prints the whole grid, 0.5 to 1 by
 * 0.05, with the held-out half's figure for each): 0.95, ahead of 1 (BM25 with expansion alone)
 * and of 0.9. With the builtin embedder, itself a lexical model, the vectors add a little
 * (spelling variants, word pairs) and cost a lot when weighted like BM25 (reciprocal rank fusion
 * with equal weights scored below BM25 alone). A provider embedder's semantic matches would earn
 * more weight; there is no judged collection here to tune that on.
 */
export const LEXICAL_WEIGHT = 0.95;

/**
 * Convex combination of the two rankings' scores, each brought to 0..1 without its scale: BM25
 * scores divided by the best one (0 is what a chunk without any query word scores, so a chunk
 * absent from the list scores 0 there, a true floor), similarities min-max normalised over the
 * vector candidates (cosines have no natural zero: the last candidate, and any chunk absent from
 * the list, get 0). Blind to each ranking's scale (BM25 grows with the query's length, cosines of
 * provider models sit in a narrow band), the weight means the same for every embedder; scores,
 * unlike ranks (reciprocal rank fusion, the former default), keep how far ahead the best
 * candidates are. Result: best first, 1 = best of both lists, at most the vector weight for a
 * chunk only the vectors found (no query word in it, or a builtin hash collision), so minScore can
 * drop those; ties by chunk id.
 */
export function fuseRankings(lexical: ScoredChunk[], semantic: ScoredChunk[], lexicalWeight = LEXICAL_WEIGHT): ScoredChunk[] {
	const fused = new Map<string, number>();
	const add = (list: ScoredChunk[], weight: number, floor: number) => {
		let best = Number.NEGATIVE_INFINITY;
		for (const hit of list) best = Math.max(best, hit.score);
		const range = best - floor;
		for (const hit of list) fused.set(hit.chunkId, (fused.get(hit.chunkId) ?? 0) + weight * (range > 0 ? (hit.score - floor) / range : 1));
	};
	if (lexical.length) add(lexical, lexicalWeight, 0);
	if (semantic.length) add(semantic, 1 - lexicalWeight, Math.min(...semantic.map((hit) => hit.score)));
	return [...fused]
		.map(([chunkId, score]) => ({ chunkId, score: Math.min(1, score) }))
		.sort((left, right) => right.score - left.score || (left.chunkId < right.chunkId ? -1 : 1));
}
