import { type LexicalChunkRow, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { seededRandom, zipfRanks } from "../helpers/zipf-text";

/**
 * Chunks whose words follow a Zipf law (rank r drawn with probability ~ 1/r) over `vocabulary`
 * words, of varied lengths (so length normalisation matters), some under a heading, some
 * duplicated (equal scores: the tie-break shows).
 */
export function zipfCorpus(seed: number, vocabulary: number) {
	const random = seededRandom(seed);
	const word = (rank: number) => `t${rank}`;
	const drawRank = zipfRanks(vocabulary);
	const zipfRank = () => drawRank(random);
	const tsvector = (words: string[]) => {
		const counts = new Map<string, number[]>();
		words.forEach((text, index) => counts.set(text, [...(counts.get(text) ?? []), index + 1]));
		return [...counts].map(([text, positions]) => `'${text}':${positions.join(",")}`).join(" ");
	};
	let previous: string | null = null;
	const chunk = (id: string, documentId: string): LexicalChunkRow => {
		const lexemes = previous !== null && random() < 0.05 ? previous : tsvector(Array.from({ length: 5 + Math.floor(random() * random() * 300) }, () => word(zipfRank())));
		previous = lexemes;
		const heading = random() < 0.1 ? tsvector([word(zipfRank()), word(zipfRank())]) : null;
		return { id, document_id: documentId, version: "1:t", lexemes, heading_lexemes: heading };
	};
	const documentRows = (documentId: string, round: number) => Array.from({ length: 1 + Math.floor(random() * 6) }, (_, index) => chunk(`${documentId}-r${round}-c${index}`, documentId));
	/** Two to four words, common and rare mixed, some weighted (as an expanded query's are). */
	const query = (weighted: boolean) =>
		new Map(Array.from({ length: 2 + Math.floor(random() * 3) }, () => [word(Math.floor(vocabulary * random() ** 2.5)), weighted ? 0.01 + random() : 1] as [string, number]));
	return { random, documentRows, query };
}

/** The changed documents' chunks as the cache receives them: a lexicon of their own, not inverted. */
export function deltaOf(rows: LexicalChunkRow[]): SourceLexicon {
	const delta = new SourceLexicon();
	delta.addRows(rows);
	return delta;
}
