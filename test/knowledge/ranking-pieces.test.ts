import { describe, expect, it } from "vitest";
import { HEADING_WEIGHT, invertLexicon, type LexicalChunkRow, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { SLICE_ROWS, SourceMatrix, type VectorChunkRow } from "../../server/knowledge/index/vector-cache";
import { encodeVector } from "../../server/knowledge/index/vector-encoding";
import { type ExpansionOptions, expandQuery } from "../../server/knowledge/search/expand-query";
import { fuseRankings, LEXICAL_WEIGHT } from "../../server/knowledge/search/fuse-rankings";
import { rankLexically } from "../../server/knowledge/search/rank-lexically";

/** A chunk row as PostgreSQL would give it: lexemes in tsvector output form. */
const row = (id: string, documentId: string, words: string, heading?: string): LexicalChunkRow => {
	const tsvector = (text: string) => {
		const positions = new Map<string, number[]>();
		text.split(" ").forEach((word, index) => positions.set(word, [...(positions.get(word) ?? []), index + 1]));
		return [...positions].map(([word, at]) => `'${word}':${at.join(",")}`).join(" ");
	};
	return { id, document_id: documentId, version: "1:t", lexemes: tsvector(words), heading_lexemes: heading ? tsvector(heading) : null };
};

const terms = (...words: string[]) => new Map(words.map((word) => [word, 1]));

/** What postMessage does to a structure built on an index-builder thread: its buffers move (transferred, not copied). */
const acrossThreads = <T>(moving: { transfer: T; buffers: ArrayBuffer[] }): T => structuredClone(moving.transfer, { transfer: moving.buffers });

/** Random documents of 1-3 chunks over a small vocabulary, some with a heading: many shared terms, many ties. */
function documentMaker() {
	const words = "shock wave boundari layer heat transfer wing lift drag flutter panel buckl cylind pressur jet nozzl".split(" ");
	let seed = 7;
	const pick = () => {
		seed = (seed * 1103515245 + 12345) % 2 ** 31;
		return words[seed % words.length];
	};
	return (id: string, round = 0) =>
		Array.from({ length: 1 + (id.length % 3) }, (_, index) => row(`${id}-r${round}-c${index}`, id, Array.from({ length: 6 + (index % 4) }, pick).join(" "), index === 0 ? pick() : undefined));
}

/** expandQuery over lexemes: each numbered in the order first seen, ties broken by lexeme (as a lexicon's term numbers sort). */
function expandLexemes(query: Map<string, number>, feedback: { terms: [string, number][]; length: number; score: number }[], options?: ExpansionOptions, frequency: (lexeme: string) => number = () => 0): Map<string, number> {
	const numbers = new Map<string, number>();
	const lexemes: string[] = [];
	const numberOf = (lexeme: string) => numbers.get(lexeme) ?? numbers.set(lexeme, lexemes.push(lexeme) - 1).get(lexeme) ?? -1;
	const chunks = feedback.map((chunk) => ({ terms: chunk.terms.map(([lexeme]) => numberOf(lexeme)), counts: chunk.terms.map(([, count]) => count), length: chunk.length, score: chunk.score }));
	const numbered = new Map([...query].map(([lexeme, weight]) => [numberOf(lexeme), weight]));
	const expanded = expandQuery(numbered, chunks, options, (term) => frequency(lexemes[term]), (left, right) => (lexemes[left] < lexemes[right] ? -1 : 1));
	return new Map([...expanded].map(([term, weight]) => [lexemes[term], weight]));
}

const LEXICON_QUERIES = [terms("shock", "wave"), terms("flutter"), terms("jet", "nozzl", "pressur"), terms("heat")];

describe("RM3 query expansion", () => {
	it("keeps the original terms' share and adds the feedback chunks' terms", () => {
		const expanded = expandLexemes(terms("propel", "slipstream"), [
			{ terms: [["propel", 1], ["slipstream", 1], ["destal", 2]], length: 4, score: 10 },
			{ terms: [["slipstream", 1], ["destal", 1], ["wing", 2]], length: 4, score: 10 },
		]);
		expect(expanded.get("propel")).toBeGreaterThan(0.25);
		expect(expanded.get("destal")).toBeGreaterThan(0);
		expect(expanded.get("wing")).toBeGreaterThan(0);
		const total = [...expanded.values()].reduce((sum, weight) => sum + weight, 0);
		expect(total).toBeCloseTo(1, 6);
		// Original terms: half the weight between them, plus what feedback gives them.
		expect((expanded.get("propel") ?? 0) + (expanded.get("slipstream") ?? 0)).toBeGreaterThanOrEqual(0.5);
	});

	it("lets a chunk scoring far below the best one contribute almost nothing", () => {
		const expanded = expandLexemes(terms("gust"), [
			{ terms: [["gust", 1], ["load", 1]], length: 2, score: 12 },
			{ terms: [["cheese", 1]], length: 1, score: 2 },
		]);
		expect(expanded.get("cheese") ?? 0).toBeLessThan(0.001);
		expect(expanded.get("load")).toBeGreaterThan(0.2);
	});

	it("passes over added terms whose postings would exceed the budget, for the next ones", () => {
		const feedback = [{ terms: [["gust", 1], ["the", 5], ["load", 2], ["wing", 1]] as [string, number][], length: 9, score: 5 }];
		const frequencies: Record<string, number> = { gust: 900_000, the: 150_000, load: 40_000, wing: 30_000 };
		const expanded = expandLexemes(terms("gust"), feedback, { feedbackChunks: 10, feedbackTerms: 40, originalWeight: 0.5, postingsBudget: 100_000 }, (term) => frequencies[term]);
		expect([...expanded.keys()].sort()).toEqual(["gust", "load", "wing"]);
	});

	it("reads terms heaviest first and equal weights by term, as one whole sort would: the same expansion, bit for bit, in the same order", () => {
		// RM3 as defined: every candidate term sorted, then read in order until the terms or the budget run out.
		const definition = (query: Map<string, number>, feedback: { terms: [string, number][]; length: number; score: number }[], options: ExpansionOptions, frequency: (term: string) => number) => {
			const total = [...query.values()].reduce((sum, weight) => sum + weight, 0);
			const best = Math.max(...feedback.map((chunk) => chunk.score));
			const relevance = new Map<string, number>();
			for (const chunk of feedback.slice(0, options.feedbackChunks)) {
				for (const [term, count] of chunk.terms) relevance.set(term, (relevance.get(term) ?? 0) + count * (Math.exp(chunk.score - best) / chunk.length));
			}
			const selected: [string, number][] = [];
			let postings = 0;
			for (const [term, weight] of [...relevance].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1))) {
				if (selected.length === options.feedbackTerms) break;
				if (!query.has(term) && postings + frequency(term) > options.postingsBudget) continue;
				if (!query.has(term)) postings += frequency(term);
				selected.push([term, weight]);
			}
			const selectedTotal = selected.reduce((sum, [, weight]) => sum + weight, 0);
			const expanded = new Map([...query].map(([term, weight]) => [term, (options.originalWeight * weight) / total]));
			for (const [term, weight] of selected) expanded.set(term, (expanded.get(term) ?? 0) + ((1 - options.originalWeight) * weight) / selectedTotal);
			return expanded;
		};
		let seed = 11;
		const draw = (below: number) => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed % below;
		};
		const vocabulary = Array.from({ length: 400 }, (_, index) => `t${(index * 7919) % 400}`);
		const frequencies = new Map(vocabulary.map((term) => [term, 1 + draw(3) * draw(900)]));
		let compared = 0;
		for (let trial = 0; trial < 60; trial++) {
			// Chunks of equal length and mostly single counts: many terms share a weight, as at a large source.
			const feedback = Array.from({ length: 10 }, (_, chunk) => ({
				terms: [...new Map(Array.from({ length: 60 }, () => [vocabulary[draw(vocabulary.length)], draw(8) === 0 ? 2 : 1] as [string, number]))],
				length: 60,
				score: 20 - chunk * (trial % 3),
			}));
			const query = terms(vocabulary[draw(vocabulary.length)], vocabulary[draw(vocabulary.length)]);
			const options = { feedbackChunks: 10, feedbackTerms: [5, 40, 400][trial % 3], originalWeight: 0.5, postingsBudget: [300, 3_000, 100_000][Math.floor(trial / 3) % 3] };
			const frequency = (term: string) => frequencies.get(term) ?? 0;
			const expanded = expandLexemes(query, feedback, options, frequency);
			expect([...expanded]).toEqual([...definition(query, feedback, options, frequency)]);
			compared += expanded.size;
		}
		expect(compared).toBeGreaterThan(60 * 10);
	});

	it("returns the query unchanged without feedback", () => {
		const query = new Map([
			[3, 1],
			[7, 1],
		]);
		expect(expandQuery(query, [])).toBe(query);
	});

	it("expands a lexicon's term numbers exactly as its lexemes: same terms, weights bit for bit, same order", () => {
		const makeDocument = documentMaker();
		const lexicon = SourceLexicon.fromRows(Array.from({ length: 300 }, (_, index) => makeDocument(`doc${index}`)).flat());
		// A word the lexicon lacks still counts in the query's total weight and stays in the query.
		const queries = [...LEXICON_QUERIES, terms("shock", "absentword"), new Map([["flutter", 2], ["panel", 1]])];
		const added = { binding: 0, loose: 0 };
		for (const [budget, query] of queries.flatMap((query) => [["binding", query], ["loose", query]] as const)) {
			const first = lexicon.rank(query, 10);
			const options = { feedbackChunks: 10, feedbackTerms: 40, originalWeight: 0.5, postingsBudget: budget === "binding" ? 150 : 100_000 };
			const byLexeme = expandLexemes(query, first.map((hit) => ({ terms: lexicon.termsOf(hit.slot), length: lexicon.lengthOf(hit.slot), score: hit.score })), options, (term) => lexicon.documentFrequencyOf(term));
			const { query: numbered, lexemeOf, documentFrequencyOf } = lexicon.numberTerms(query);
			const byNumber = expandQuery(numbered, first.map((hit) => ({ ...lexicon.termNumbersOf(hit.slot), length: lexicon.lengthOf(hit.slot), score: hit.score })), options, documentFrequencyOf, (left, right) => (lexemeOf(left) < lexemeOf(right) ? -1 : 1));
			expect([...byNumber].map(([term, weight]) => [lexemeOf(term), weight])).toEqual([...byLexeme]);
			added[budget] += byLexeme.size - query.size;
		}
		// Terms were added, and the smaller budget left some out.
		expect(added.loose).toBeGreaterThan(4);
		expect(added.binding).toBeLessThan(added.loose);
	});
});

describe("score fusion", () => {
	it("divides BM25 by its best score and min-max normalises similarities, so a chunk first in both scores 1", () => {
		const fused = fuseRankings(
			[
				{ chunkId: "a", score: 30 },
				{ chunkId: "b", score: 20 },
				{ chunkId: "c", score: 10 },
			],
			[
				{ chunkId: "a", score: 0.9 },
				{ chunkId: "c", score: 0.5 },
				{ chunkId: "d", score: 0.1 },
			],
			0.8,
		);
		expect(fused.map((hit) => hit.chunkId)).toEqual(["a", "b", "c", "d"]);
		expect(fused[0].score).toBe(1);
		expect(fused[1].score).toBeCloseTo(0.8 * (20 / 30), 6);
		expect(fused[2].score).toBeCloseTo(0.8 * (10 / 30) + 0.2 * 0.5, 6);
		expect(fused[3].score).toBe(0);
	});

	it("does not care about a list's scale: multiplying BM25 scores changes nothing", () => {
		const semantic = [
			{ chunkId: "x", score: 0.31 },
			{ chunkId: "y", score: 0.3 },
		];
		const lexical = [
			{ chunkId: "y", score: 4 },
			{ chunkId: "z", score: 3 },
			{ chunkId: "x", score: 1 },
		];
		const scaled = lexical.map((hit) => ({ ...hit, score: hit.score * 100 }));
		expect(fuseRankings(scaled, semantic)).toEqual(fuseRankings(lexical, semantic));
	});

	it("keeps a chunk only the vectors found at most at the vector weight", () => {
		const fused = fuseRankings([], [
			{ chunkId: "p", score: 0.7 },
			{ chunkId: "q", score: 0.2 },
		]);
		expect(fused.map((hit) => hit.chunkId)).toEqual(["p", "q"]);
		expect(fused[0].score).toBeCloseTo(1 - LEXICAL_WEIGHT, 6);
		expect(fused[1].score).toBe(0);
	});
});

describe("BM25 lexicon", () => {
	it("weights heading words above the same words in a chunk's text", () => {
		const lexicon = SourceLexicon.fromRows([
			row("in-text", "d1", "refund shipping cost order"),
			row("in-heading", "d2", "return item within thirty day", "refund polici"),
			row("other", "d3", "warehouse shipping label"),
		]);
		expect(lexicon.rank(terms("refund"), 3).map((hit) => hit.chunkId)).toEqual(["in-heading", "in-text"]);
		expect([...lexicon.termsOf(lexicon.rank(terms("polici"), 1)[0].slot)]).toContainEqual(["polici", HEADING_WEIGHT]);
	});

	it("finds a chunk sharing no word with the query through the best chunks' vocabulary (expansion)", () => {
		const lexicon = SourceLexicon.fromRows([
			row("f1", "d1", "propel slipstream wing lift increment destal"),
			row("f2", "d2", "slipstream propel destal lift increment"),
			row("target", "d3", "destal wing lift increment high angl attack"),
			row("noise1", "d4", "boundari layer heat transfer plate"),
			row("noise2", "d5", "shell buckl cylind pressur load"),
		]);
		expect(rankLexically(lexicon, terms("propel", "slipstream"), 5, false).map((hit) => hit.chunkId)).not.toContain("target");
		const expanded = rankLexically(lexicon, terms("propel", "slipstream"), 5).map((hit) => hit.chunkId);
		expect(expanded.slice(0, 3)).toEqual(expect.arrayContaining(["f1", "f2", "target"]));
		expect(expanded).not.toContain("noise1");
	});

	it("updated document by document, ranks exactly as a lexicon built from scratch", () => {
		const makeDocument = documentMaker();
		const documents = new Map<string, LexicalChunkRow[]>();
		const incremental = SourceLexicon.fromRows([]);
		// Enough changes to pass the compaction threshold (1024 tail or dead chunks) and come back.
		for (let round = 0; round < 1500; round++) {
			const id = `doc${round % 700}`;
			const removed = documents.has(id) ? [id] : [];
			documents.delete(id);
			const added = round % 5 === 4 ? [] : makeDocument(id, round);
			if (added.length) documents.set(id, added);
			incremental.apply(removed, added);
		}
		const fresh = SourceLexicon.fromRows([...documents.values()].flat());
		expect(incremental.size).toBe(fresh.size);
		for (const query of LEXICON_QUERIES) {
			const scores = (lexicon: SourceLexicon) =>
				lexicon
					.rank(query, 1000)
					.map((hit) => `${hit.chunkId}:${hit.score.toFixed(4)}`)
					.sort();
			expect(scores(incremental)).toEqual(scores(fresh));
		}
	});

	it("built on another thread and kept up to date with changes built there, ranks exactly as a lexicon built here", async () => {
		const makeDocument = documentMaker();
		const documents = new Map<string, LexicalChunkRow[]>();
		for (let index = 0; index < 300; index++) documents.set(`doc${index}`, makeDocument(`doc${index}`));
		const built = SourceLexicon.fromRows([...documents.values()].flat());
		const held = await SourceLexicon.fromTransfer(acrossThreads(built.toTransfer()));
		let compactions = 0;
		for (let round = 0; round < 1500; round++) {
			const id = `doc${round % 700}`;
			const removed = documents.has(id) ? [id] : [];
			documents.delete(id);
			const added = round % 5 === 4 ? [] : makeDocument(id, round);
			if (added.length) documents.set(id, added);
			// As the cache does: the changed document's chunks built elsewhere (not inverted), absorbed here.
			const delta = new SourceLexicon();
			delta.addRows(added);
			held.absorb(removed, added.length ? await SourceLexicon.fromTransfer(acrossThreads(delta.toTransfer())) : null);
			if (held.compactionDue) {
				held.completeCompaction(invertLexicon(structuredClone(held.pairs())));
				compactions++;
			}
		}
		expect(compactions).toBeGreaterThan(0);
		const fresh = SourceLexicon.fromRows([...documents.values()].flat());
		expect(held.size).toBe(fresh.size);
		for (const query of LEXICON_QUERIES) {
			// Same order too: slots keep the order in which chunks arrived, as in a lexicon built from the rows.
			const ranked = (lexicon: SourceLexicon) => rankLexically(lexicon, query, 1000).map((hit) => `${hit.chunkId}:${hit.score.toFixed(5)}`);
			expect(ranked(held)).toEqual(ranked(fresh));
			const [best] = fresh.rank(query, 1);
			const [heldBest] = held.rank(query, 1);
			if (best) expect([...held.termsOf(heldBest.slot)]).toEqual([...fresh.termsOf(best.slot)]);
		}
		for (const lexeme of ["shock", "flutter", "nozzl"]) expect(held.documentFrequencyOf(lexeme)).toBe(fresh.documentFrequencyOf(lexeme));
	});
});

describe("vector matrix", () => {
	const vectorRow = (id: string, documentId: string, values: number[]): VectorChunkRow => {
		const vector = Float32Array.from(values);
		const norm = Math.hypot(...vector);
		return { id, document_id: documentId, version: "1:t", embedding: encodeVector(vector.map((value) => value / norm)) };
	};

	it("adds and removes documents in place and answers as a matrix built from scratch", () => {
		const documents = new Map<string, VectorChunkRow[]>();
		const matrix = SourceMatrix.fromRows([]);
		for (let round = 0; round < 400; round++) {
			const id = `doc${round % 90}`;
			const removed = documents.has(id) ? [id] : [];
			documents.delete(id);
			const added = round % 4 === 3 ? [] : [0, 1].map((index) => vectorRow(`${id}-r${round}-${index}`, id, [1 + (round % 7), index + 1, (round * 13) % 5, 1]));
			if (added.length) documents.set(id, added);
			matrix.apply(removed, added);
		}
		const fresh = SourceMatrix.fromRows([...documents.values()].flat());
		expect(matrix.size).toBe(fresh.size);
		const query = Float32Array.from([0.5, 0.5, 0.5, 0.5]);
		const answer = (source: SourceMatrix) =>
			source
				.nearest(query, 1000)
				.map((hit) => `${hit.chunkId}:${hit.similarity.toFixed(5)}`)
				.sort();
		expect(answer(matrix)).toEqual(answer(fresh));
		const live = new Set([...documents.values()].flat().map((chunk) => chunk.id));
		expect(matrix.nearest(query, 1000).every((hit) => live.has(hit.chunkId))).toBe(true);
	});

	it("built on another thread and kept up to date with changes built there, answers exactly as the same matrix updated here", async () => {
		const documents = new Map<string, VectorChunkRow[]>();
		const rowsOf = (id: string, round: number) => [0, 1].map((index) => vectorRow(`${id}-r${round}-${index}`, id, [1 + (round % 7), index + 1, (round * 13) % 5, 1]));
		for (let index = 0; index < 50; index++) documents.set(`doc${index}`, rowsOf(`doc${index}`, index));
		const here = SourceMatrix.fromRows([...documents.values()].flat());
		const built = SourceMatrix.fromRows([...documents.values()].flat());
		const held = await SourceMatrix.fromTransfer(acrossThreads(built.toTransfer()));
		for (let round = 0; round < 400; round++) {
			const id = `doc${round % 90}`;
			const removed = documents.has(id) ? [id] : [];
			documents.delete(id);
			const added = round % 4 === 3 ? [] : rowsOf(id, round);
			if (added.length) documents.set(id, added);
			here.apply(removed, added);
			const delta = new SourceMatrix();
			delta.dimensions = held.dimensions;
			delta.apply([], added);
			held.absorb(removed, added.length ? await SourceMatrix.fromTransfer(acrossThreads(delta.toTransfer())) : null);
		}
		expect(held.size).toBe(here.size);
		// Same slots as rows applied in place: the same answer in the same order, ties included.
		for (const query of [[0.5, 0.5, 0.5, 0.5], [1, 0, 0, 0], [0, 0.2, 0.9, 0.1]].map((values) => Float32Array.from(values))) {
			expect(held.nearest(query, 1000)).toEqual(here.nearest(query, 1000));
		}
	});

	it("scans a large matrix in slices that let the event loop turn between them, answers as the whole scan, and starts over when a change lands meanwhile", async () => {
		const dimensions = 16;
		const rowsOf = (documentId: string, first: number, count: number) =>
			Array.from({ length: count }, (_, index) => vectorRow(`${documentId}-${first + index}`, documentId, Array.from({ length: dimensions }, (_, dimension) => 1 + ((first + index) * (dimension + 3)) % 97)));
		const rows = Array.from({ length: 5 }, (_, document) => rowsOf(`doc${document}`, document * 40_000, 40_000)).flat();
		const matrix = SourceMatrix.fromRows(rows);
		expect(matrix.size).toBeGreaterThan(3 * SLICE_ROWS);
		const query = Float32Array.from({ length: dimensions }, (_, dimension) => (dimension % 3 === 0 ? 0 : dimension));

		let turns = 0;
		const counting = setInterval(() => turns++, 0);
		const sliced = await matrix.nearestInSlices(query, 50);
		clearInterval(counting);
		expect(sliced).toEqual(matrix.nearest(query, 50));
		expect(turns).toBeGreaterThan(0);

		// A document replaced while a scan is under way: the scan's answer is the matrix's after the change.
		const scan = matrix.nearestInSlices(query, 50);
		const replacement = [vectorRow("doc0-new", "doc0", Array.from({ length: dimensions }, (_, dimension) => query[dimension]))];
		matrix.apply(["doc0"], replacement);
		const answered = await scan;
		expect(answered[0].chunkId).toBe("doc0-new");
		expect(answered).toEqual(matrix.nearest(query, 50));
		expect(answered.some((hit) => hit.chunkId.startsWith("doc0-") && hit.chunkId !== "doc0-new")).toBe(false);
	});

	it("released (its HNSW graph took its place), gives its memory back at once, after a scan in slices under way has answered", async () => {
		const dimensions = 64;
		const rows = Array.from({ length: 3 * SLICE_ROWS }, (_, index) =>
			vectorRow(`c${index}`, `doc${index % 7}`, Array.from({ length: dimensions }, (_, dimension) => 1 + ((index * (dimension + 5)) % 89))),
		);
		const matrix = SourceMatrix.fromRows(rows);
		const query = Float32Array.from({ length: dimensions }, (_, dimension) => (dimension % 2 === 0 ? 1 : 0.2));
		const whole = matrix.nearest(query, 20);
		const matrixBytes = 3 * SLICE_ROWS * dimensions * 4;
		const held = () => process.memoryUsage().arrayBuffers;

		const scan = matrix.nearestInSlices(query, 20);
		const before = held();
		matrix.release();
		// The scan under way still reads the vectors: nothing is released before it answers.
		expect(held()).toBeGreaterThan(before - matrixBytes / 2);
		expect(await scan).toEqual(whole);
		// The buffers were detached and go with the closed channel's undelivered message, a turn of the event loop
		// later; no garbage collection is forced here, and none is needed.
		let turns = 0;
		while (held() > before - matrixBytes && turns < 20) {
			await new Promise((resolve) => setImmediate(resolve));
			turns++;
		}
		expect(held()).toBeLessThan(before - matrixBytes);
		expect(matrix.nearest(query, 20)).toEqual([]);
		expect(await matrix.nearestInSlices(query, 20)).toEqual([]);
	});
});
