import { type LexicalHit, RANKING_SLICE_MS, type SourceLexicon } from "../index/lexical-index";
import { runToEnd, type Steps } from "../../shared/time-slices";
import { DEFAULT_EXPANSION, type ExpansionOptions, expandQuery } from "./expand-query";

/**
 * The lexical half of search: BM25 for the query's lexemes, then BM25 again for the query expanded
 * with pseudo-relevance feedback from the first ranking's best chunks (RM3, see expand-query.ts).
 * `expansion: false` is plain BM25 (the benchmark's component row). Both passes find their top k
 * without scoring every posting; `ranking: "exhaustive"` scores them all (the same result: for the
 * tests and the benchmark to compare).
 */
export function rankLexically(
	lexicon: SourceLexicon,
	queryTerms: Map<string, number>,
	limit: number,
	expansion: ExpansionOptions | false = DEFAULT_EXPANSION,
	ranking: "pruned" | "exhaustive" = "pruned",
): LexicalHit[] {
	return runToEnd(rankLexicallySteps(lexicon, queryTerms, limit, expansion, ranking));
}

/**
 * rankLexically as search runs it: in slices of the event loop, taking turns with the lexicon's
 * other rankings (SourceLexicon.rankInSlices), with the same result.
 */
export function rankLexicallyInSlices(
	lexicon: SourceLexicon,
	queryTerms: Map<string, number>,
	limit: number,
	expansion: ExpansionOptions | false = DEFAULT_EXPANSION,
	sliceMs = RANKING_SLICE_MS,
): Promise<LexicalHit[]> {
	return lexicon.rankInSlices(() => rankLexicallySteps(lexicon, queryTerms, limit, expansion, "pruned"), sliceMs);
}

function* rankLexicallySteps(
	lexicon: SourceLexicon,
	queryTerms: Map<string, number>,
	limit: number,
	expansion: ExpansionOptions | false,
	ranking: "pruned" | "exhaustive",
): Steps<LexicalHit[]> {
	const rank = (terms: Map<string, number>, count: number) => (ranking === "pruned" ? lexicon.rankSteps(terms, count) : lexicon.rankExhaustiveSteps(terms, count));
	if (!expansion) return yield* rank(queryTerms, limit);
	// The first pass's chunks are wanted for their terms, read by slot: their ids are never read.
	const first = ranking === "pruned" ? yield* lexicon.rankedSlotsSteps(queryTerms, expansion.feedbackChunks) : yield* lexicon.rankedExhaustiveSlotsSteps(queryTerms, expansion.feedbackChunks);
	if (first.slots.length === 0) return [];
	// In term numbers: a thousand and more feedback terms at a large source, hashed as numbers rather than lexemes.
	const { query, lexemeOf, documentFrequencyOf } = lexicon.numberTerms(queryTerms);
	const terms = yield* lexicon.termNumbersOfSteps(first.slots);
	const feedback = first.slots.map((slot, index) => ({ ...terms[index], length: lexicon.lengthOf(slot), score: first.scores[index] }));
	const expanded = expandQuery(query, feedback, expansion, documentFrequencyOf, (left, right) => (lexemeOf(left) < lexemeOf(right) ? -1 : 1));
	return yield* rank(new Map([...expanded].map(([term, weight]) => [lexemeOf(term), weight])), limit);
}
