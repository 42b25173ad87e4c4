import { describe, expect, it } from "vitest";
import { type ColumnRankingOptions, DEFAULT_COLUMN_RANKING, invertLexicon, type LexicalChunkRow, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { rankLexically } from "../../server/knowledge/search/rank-lexically";
import { WINDOW_SLOTS } from "../../server/knowledge/index/pruned-top-k";
import { deltaOf, zipfCorpus } from "./zipf-lexicon-corpus";


/** Every field the pruned ranking returns must equal the exhaustive one: ids, slots, scores (bit for bit) and order. */
function expectSameTopKOf(lexicon: SourceLexicon, queries: Map<string, number>[], limits: number[]) {
	let compared = 0;
	for (const query of queries) {
		for (const limit of limits) {
			const exhaustive = lexicon.rankExhaustive(query, limit);
			expect(lexicon.rank(query, limit)).toEqual(exhaustive);
			compared += exhaustive.length;
			// Expansion in both modes: its feedback terms and weights come from the first pass.
			expect(rankLexically(lexicon, query, limit)).toEqual(rankLexically(lexicon, query, limit, undefined, "exhaustive"));
		}
	}
	return compared;
}

const LIMITS = [1, 3, 10, 50, 200];

/**
 * The pruned ranking is MaxScore over lists, or (frequent words held as columns, impact-top-k.ts)
 * bounds by blocks of slots: both must give the exhaustive result. Columns are made only for large
 * lexicons by default; here every word in a sixteenth of the slots or more is frequent, and
 * queries go one way always, or as the lexicon picks.
 */
const WAYS: [string, Partial<ColumnRankingOptions>][] = [
	["MaxScore over lists", { mode: "never" }],
	["frequent words as columns, always", { mode: "always", minimumSlots: 0 }],
	["frequent words as columns where the lexicon picks them", { mode: "auto", minimumSlots: 0 }],
	// About three words' columns at the largest lexicon here: columns leave and their arrays are reused for others.
	["frequent words as columns, few kept", { mode: "auto", minimumSlots: 0, budgetBytes: 90_000 }],
];

describe.each(WAYS)("pruned BM25 top-k (%s)", (_way, options) => {
	const fromRows = (rows: LexicalChunkRow[]) => {
		const lexicon = SourceLexicon.fromRows(rows);
		lexicon.columnRanking = { ...DEFAULT_COLUMN_RANKING, ...options };
		return lexicon;
	};
	const expectSameTopK = (lexicon: SourceLexicon, queries: Map<string, number>[], limits: number[]) => {
		const before = lexicon.rankingsWithColumns;
		const compared = expectSameTopKOf(lexicon, queries, limits);
		// The way under test was taken (where the lexicon picks, see the test of many windows).
		if (options.mode === "never") expect(lexicon.rankingsWithColumns).toBe(before);
		if (options.mode === "always") expect(lexicon.rankingsWithColumns).toBeGreaterThan(before);
		return compared;
	};

	it("returns exactly the exhaustive top-k on random Zipf corpora, plain and weighted queries", () => {
		for (const seed of [1, 2, 3]) {
			const corpus = zipfCorpus(seed, 3000);
			const rows = Array.from({ length: 400 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat();
			const lexicon = fromRows(rows);
			const queries = Array.from({ length: 40 }, (_, index) => corpus.query(index % 2 === 1));
			const compared = expectSameTopK(lexicon, queries, LIMITS);
			expect(compared).toBeGreaterThan(1000);
		}
	});

	it("matches the exhaustive top-k with a tail of new chunks and dead slots, and after compaction", () => {
		const corpus = zipfCorpus(11, 2000);
		const documents = new Map<string, number>();
		const lexicon = fromRows(Array.from({ length: 600 }, (_, index) => (documents.set(`doc${index}`, 0), corpus.documentRows(`doc${index}`, 0))).flat());
		const queries = Array.from({ length: 30 }, (_, index) => corpus.query(index % 3 === 0));
		let compactions = 0;
		let checkedWithTail = false;
		for (let round = 1; round <= 900; round++) {
			// Replace, delete or add a document: its old chunks become dead slots, its new ones join the tail.
			const id = `doc${Math.floor(corpus.random() * 800)}`;
			const removed = documents.has(id) ? [id] : [];
			documents.delete(id);
			const added = corpus.random() < 0.2 ? [] : corpus.documentRows(id, round);
			if (added.length) documents.set(id, round);
			const wasDue = lexicon.compactionDue;
			lexicon.absorb(removed, added.length ? deltaOf(added) : null);
			if (round % 150 === 0) {
				checkedWithTail = true;
				expectSameTopK(lexicon, queries, LIMITS);
			}
			if (lexicon.compactionDue && !wasDue) {
				expectSameTopK(lexicon, queries.slice(0, 10), LIMITS);
				lexicon.completeCompaction(invertLexicon(structuredClone(lexicon.pairs())));
				compactions++;
				expectSameTopK(lexicon, queries.slice(0, 10), LIMITS);
			}
		}
		expect(checkedWithTail).toBe(true);
		expect(compactions).toBeGreaterThan(0);
		expectSameTopK(lexicon, queries, LIMITS);
	});

	it("matches the exhaustive top-k when chunks added since the last compaction are much longer (bounds no longer hold)", () => {
		const corpus = zipfCorpus(5, 500);
		const lexicon = fromRows(Array.from({ length: 300 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat());
		const long: LexicalChunkRow[] = Array.from({ length: 200 }, (_, index) => ({
			id: `long${index}`,
			document_id: "long",
			version: "1:t",
			lexemes: Array.from({ length: 200 }, (_, word) => `'t${(word * 7 + index) % 500}':${Array.from({ length: 1 + (word % 4) }, (_, at) => at + 1).join(",")}`).join(" "),
			heading_lexemes: null,
		}));
		lexicon.absorb([], deltaOf(long));
		expect(lexicon.compactionDue).toBe(true);
		// Ranked exhaustively (bounds are what both pruned ways need), whichever way is set.
		expectSameTopKOf(lexicon, Array.from({ length: 20 }, () => corpus.query(false)), LIMITS);
	});

	it("matches the exhaustive top-k over many windows of slots, frequent words included (where most chunks are pruned)", () => {
		const corpus = zipfCorpus(23, 800);
		const lexicon = fromRows(Array.from({ length: 4000 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat());
		expect(lexicon.size).toBeGreaterThan(10 * WINDOW_SLOTS);
		// Two to four of the 40 most frequent words, each in a large share of the chunks, and the usual queries.
		const frequent = Array.from({ length: 20 }, (_, index) => new Map(Array.from({ length: 2 + (index % 3) }, (_, word) => [`t${(index * 7 + word * 13) % 40}`, 1] as [string, number])));
		for (const query of frequent) expect(query.size > 0 && [...query.keys()].every((word) => lexicon.documentFrequencyOf(word) > 0)).toBe(true);
		if (options.mode === "auto" && options.budgetBytes === undefined) {
			// A word's columns are made at its first ranking: a query of two of the most frequent words, never ranked before, goes by columns at once.
			const first = lexicon.rankingsWithColumns;
			const mostFrequent = new Map([["t0", 1], ["t1", 1]]);
			expect([...mostFrequent.keys()].every((word) => lexicon.documentFrequencyOf(word) * 16 >= lexicon.size)).toBe(true);
			expect(lexicon.rank(mostFrequent, 10)).toEqual(lexicon.rankExhaustive(mostFrequent, 10));
			expect(lexicon.rankingsWithColumns).toBe(first + 1);
		}
		const before = lexicon.rankingsWithColumns;
		expectSameTopK(lexicon, [...frequent, ...Array.from({ length: 20 }, (_, index) => corpus.query(index % 2 === 1))], LIMITS);
		// Where the lexicon picks: columns for the frequent words' queries (three pruned rankings a query and limit), lists for rare words.
		if (options.mode === "auto" && options.budgetBytes === undefined) {
			// Most of them (a query whose other words' lists are long goes by MaxScore).
			expect(lexicon.rankingsWithColumns - before).toBeGreaterThan((frequent.length * LIMITS.length * 3) / 2);
			const rare = new Map([...Array.from({ length: 100 }, (_, index) => `t${700 + index}`)].filter((word) => lexicon.documentFrequencyOf(word) * 16 < lexicon.size).slice(0, 3).map((word) => [word, 1]));
			expect(rare.size).toBe(3);
			const withColumns = lexicon.rankingsWithColumns;
			expect(lexicon.rank(rare, 10)).toEqual(lexicon.rankExhaustive(rare, 10));
			expect(lexicon.rankingsWithColumns).toBe(withColumns);
		}
	});
});

/**
 * A builder thread sizes a whole source's pairs from its first page (a million chunks: 1 GB) and
 * inverts them in place, so its peak is the pairs and the postings, not twice the pairs besides.
 */
describe("a lexicon built as a builder thread builds it", () => {
	it("keeps the pairs it reserved through the build and the inversion, and ranks as one built without reserving", () => {
		const corpus = zipfCorpus(4, 2000);
		const pages = Array.from({ length: 20 }, (_, page) => Array.from({ length: 60 }, (_, index) => corpus.documentRows(`doc${page}-${index}`, 0)).flat());
		const chunks = pages.reduce((sum, page) => sum + page.length, 0);
		const reserved = new SourceLexicon();
		reserved.addRows(pages[0]);
		reserved.reserveFor(chunks);
		const buffer = reserved.pairs().pairTerms.buffer;
		for (const page of pages.slice(1)) reserved.addRows(page);
		reserved.settle();
		// No copy of the pairs while they grew, none when they were inverted.
		expect(reserved.pairs().pairTerms.buffer).toBe(buffer);
		const pairs = reserved.pairs().pairTerms.length;
		// More than the first page's room (they would have grown), less than a doubling's slack.
		expect(pairs).toBeGreaterThan(2 * (1 << 16));
		expect(buffer.byteLength).toBeLessThan(pairs * 4 * 1.25);

		const plain = new SourceLexicon();
		for (const page of pages) plain.addRows(page);
		plain.settle();
		const queries = Array.from({ length: 30 }, (_, index) => corpus.query(index % 2 === 0));
		for (const query of queries) expect(rankLexically(reserved, query, 20)).toEqual(rankLexically(plain, query, 20));
		expect(reserved.pairs()).toEqual(plain.pairs());
		// Inverted again with every slot live: the same arrays; with a dead slot: compacted into arrays of their own.
		expect(invertLexicon(reserved.pairs()).pairTerms.buffer).toBe(buffer);
		const withDead = reserved.pairs();
		expect(invertLexicon({ ...withDead, live: withDead.live.map((live, slot) => (slot === 7 ? 0 : live)) }).pairTerms.buffer).not.toBe(buffer);
	});
});
