import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { readLexiconFile, writeLexiconFile } from "../../server/knowledge/index/lexicon-files";
import { WINDOW_SLOTS } from "../../server/knowledge/index/pruned-top-k";
import { DEFAULT_EXPANSION } from "../../server/knowledge/search/expand-query";
import { rankLexically, rankLexicallyInSlices } from "../../server/knowledge/search/rank-lexically";
import { SearchWarmUp, WARM_UP_SEARCHES } from "../../server/knowledge/search/search-warm-up";
import { deltaOf, zipfCorpus } from "./zipf-lexicon-corpus";

/** Turns of the event loop taken by other callbacks while `work` runs. */
async function loopTurnsDuring<T>(work: Promise<T>): Promise<{ result: T; turns: number }> {
	let turns = 0;
	let running = true;
	const tick = () => {
		if (!running) return;
		turns++;
		setImmediate(tick);
	};
	setImmediate(tick);
	const result = await work;
	running = false;
	return { result, turns };
}

const frequentWords = (count: number) => new Map(Array.from({ length: count }, (_, index) => [`t${index + 1}`, 1]));

/**
 * A search ranks its lexical half on the API's event loop in slices (SourceLexicon.rankInSlices):
 * another request waits for a slice, not for a whole ranking of frequent words over a million
 * chunks. What it returns must be exactly what ranking at once returns, however its slices
 * interleave with other rankings of the same lexicon and with changes to it.
 */
describe("lexical ranking in slices of the event loop", () => {
	const corpus = zipfCorpus(57, 3000);
	const documents = Array.from({ length: 2500 }, (_, index) => `doc${index}`);
	const rows = documents.flatMap((id) => corpus.documentRows(id, 0));
	const queries = [...Array.from({ length: 24 }, (_, index) => corpus.query(index % 2 === 1)), frequentWords(2), frequentWords(4)];
	let directory: string;
	let inMemory: SourceLexicon;
	let inPieces: SourceLexicon;

	beforeAll(async () => {
		directory = await mkdtemp(join(tmpdir(), "ranking-slices-test-"));
		inMemory = SourceLexicon.fromRows(rows);
		writeLexiconFile(directory, "source", SourceLexicon.fromRows(rows).toTransfer().transfer);
		inPieces = await SourceLexicon.fromTransfer(readLexiconFile(directory, "source", { inPieces: true })!.transfer);
		expect(inPieces.inPieces).toBe(true);
		// Several windows of slots: a ranking pauses several times.
		expect(inMemory.size).toBeGreaterThan(4 * WINDOW_SLOTS);
	});

	afterAll(async () => {
		await rm(directory, { recursive: true, force: true });
	});

	it("ranks every query as at once, in memory and in pieces, with all of them started together and pausing at every window", async () => {
		for (const lexicon of [inMemory, inPieces]) {
			const atOnce = queries.map((query) => rankLexically(lexicon, query, 50));
			const { result: sliced, turns } = await loopTurnsDuring(Promise.all(queries.map((query) => rankLexicallyInSlices(lexicon, query, 50, DEFAULT_EXPANSION, 0))));
			expect(sliced).toEqual(atOnce);
			expect(atOnce.filter((hits) => hits.length === 50).length).toBeGreaterThan(queries.length / 2);
			// Each ranking gave the loop back at every window of each of its two passes.
			expect(turns).toBeGreaterThan(queries.length * 4);
		}
	});

	it("starts a ranking again when the lexicon changes while it is paused: its result is the new state's, exactly", async () => {
		const query = frequentWords(3);
		const before = rankLexically(inPieces, query, 50);
		const topDocument = documents.find((id) => rows.some((row) => row.document_id === id && row.id === before[0].chunkId));
		expect(topDocument).toBeDefined();
		const replacement = corpus.documentRows("added", 1);
		// Queued before the ranking's first pause: the change lands while it is paused.
		setImmediate(() => inPieces.absorb([topDocument!], deltaOf(replacement)));
		const sliced = await rankLexicallyInSlices(inPieces, query, 50, DEFAULT_EXPANSION, 0);
		const after = rankLexically(inPieces, query, 50);
		expect(sliced).toEqual(after);
		expect(sliced).not.toEqual(before);
		expect(sliced.map((hit) => hit.chunkId)).not.toContain(before[0].chunkId);

		// An exhaustive ranking given up while paused leaves its scratch as it found it: the next one ranks as the pruned one.
		const other = corpus.documentRows("other", 2);
		setImmediate(() => inPieces.absorb([], deltaOf(other)));
		const exhaustive = await inPieces.rankInSlices(() => inPieces.rankExhaustiveSteps(query, 50), 0);
		expect(exhaustive).toEqual(inPieces.rank(query, 50));
		expect(inPieces.rankExhaustive(frequentWords(2), 50)).toEqual(inPieces.rank(frequentWords(2), 50));
	});

	it("ends even when the lexicon changes at every pause, with the result of the state it ended on", async () => {
		const query = frequentWords(2);
		let ended = false;
		let changes = 0;
		const change = () => {
			if (ended) return;
			inPieces.absorb([], deltaOf(corpus.documentRows(`busy${changes}`, 3)));
			changes++;
			setImmediate(change);
		};
		setImmediate(change);
		const sliced = await rankLexicallyInSlices(inPieces, query, 50, DEFAULT_EXPANSION, 0).finally(() => {
			ended = true;
		});
		expect(changes).toBeGreaterThan(0);
		expect(sliced).toEqual(rankLexically(inPieces, query, 50));
	});

	it("reads a lexicon in pieces off the event loop: other callbacks run while its lists are read, and it ranks as at once", async () => {
		// Slices of a second: a ranking in memory never gives the loop back by itself.
		const query = corpus.query(false);
		const opened = async () => SourceLexicon.fromTransfer(readLexiconFile(directory, "source", { inPieces: true })!.transfer);
		const atOnce = rankLexically(await opened(), query, 50);
		expect(atOnce).toHaveLength(50);
		const inMemoryRun = await loopTurnsDuring(rankLexicallyInSlices(inMemory, query, 50, DEFAULT_EXPANSION, 1000));
		expect(inMemoryRun.turns).toBe(0);
		// In pieces, opened afresh (nothing of it read yet), each read of lists is made on the thread pool, the loop
		// free meanwhile (a read the page cache misses waits for the disk there).
		const inPiecesRun = await loopTurnsDuring(rankLexicallyInSlices(await opened(), query, 50, DEFAULT_EXPANSION, 1000));
		expect(inPiecesRun.result).toEqual(atOnce);
		expect(inPiecesRun.turns).toBeGreaterThan(0);
	});

	it("reads a search's chunk ids and its feedback chunks' terms off the event loop too, and ranks as at once", async () => {
		const query = corpus.query(false);
		const lexicon = await SourceLexicon.fromTransfer(readLexiconFile(directory, "source", { inPieces: true })!.transfer);
		const plain = rankLexically(lexicon, query, 50, false);
		// The query's lists are held from the ranking before: what is left to read is its hits' ids (a hundred small reads at 50 hits).
		const again = await loopTurnsDuring(rankLexicallyInSlices(lexicon, query, 50, false, 1000));
		expect(again.result).toEqual(plain);
		expect(again.turns).toBeGreaterThan(0);
		// Expanded: the first pass's chunks are read for their terms, together.
		const expanded = rankLexically(lexicon, query, 50);
		const expandedAgain = await loopTurnsDuring(rankLexicallyInSlices(lexicon, query, 50, DEFAULT_EXPANSION, 1000));
		expect(expandedAgain.result).toEqual(expanded);
		expect(expandedAgain.turns).toBeGreaterThan(0);
	});

	it("lets other callbacks run between queued rankings, however short each one is", async () => {
		// Each well within its slice (a small lexicon, slices of a second): none pauses by itself.
		const small = SourceLexicon.fromRows(rows.slice(0, 300));
		let finished = 0;
		let finishedWhenOthersRan = -1;
		const rankings = queries.map((query) => rankLexicallyInSlices(small, query, 50, DEFAULT_EXPANSION, 1000).then(() => finished++));
		setImmediate(() => {
			finishedWhenOthersRan = finished;
		});
		await Promise.all(rankings);
		expect(finished).toBe(queries.length);
		// Run back to back (as promise callbacks chained one after another), all would have ended before it.
		expect(finishedWhenOthersRan).toBeGreaterThanOrEqual(0);
		expect(finishedWhenOthersRan).toBeLessThan(queries.length);
	});
});

/**
 * The first searches of a process run partly unoptimized: after the first search of a large
 * source, searches of its own words run in the background (search-warm-up.ts), once.
 */
describe("warming search's code", () => {
	const corpus = zipfCorpus(91, 3000);
	const rows = Array.from({ length: 2000 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat();
	const lexicon = SourceLexicon.fromRows(rows);

	it("searches the lexicon's own words once, in the background, leaving searches meanwhile as they are", async () => {
		const queries = lexicon.sampleQueries(WARM_UP_SEARCHES);
		expect(queries).toHaveLength(WARM_UP_SEARCHES);
		// Two or three words, each in between a thousandth and half of the chunks, not all the same.
		for (const query of queries) {
			expect(query.size).toBeGreaterThanOrEqual(2);
			for (const word of query.keys()) expect(lexicon.documentFrequencyOf(word) * 1000).toBeGreaterThanOrEqual(lexicon.size);
			for (const word of query.keys()) expect(lexicon.documentFrequencyOf(word) * 2).toBeLessThanOrEqual(lexicon.size);
		}
		expect(new Set(queries.flatMap((query) => [...query.keys()])).size).toBeGreaterThan(WARM_UP_SEARCHES);

		// Searching as search does for the lexical half: ranked in slices, taking turns.
		const searched: string[][] = [];
		const search = (words: string[]) => (searched.push(words), rankLexicallyInSlices(lexicon, new Map(words.map((word) => [word, 1])), 50, DEFAULT_EXPANSION, 0));
		const warmUp = new SearchWarmUp(lexicon.size);
		// A smaller lexicon than the threshold starts nothing.
		warmUp.offer(SourceLexicon.fromRows(rows.slice(0, 500)), search);
		await warmUp.finished();
		expect(warmUp.searches).toBe(0);

		const users = [corpus.query(false), frequentWords(3), corpus.query(true)];
		const alone = users.map((query) => rankLexically(lexicon, query, 20));
		warmUp.offer(lexicon, search);
		// Searches while it runs take turns with it, and rank as they would alone.
		expect(await Promise.all(users.map((query) => rankLexicallyInSlices(lexicon, query, 20, DEFAULT_EXPANSION, 0)))).toEqual(alone);
		expect(warmUp.searches).toBeLessThan(WARM_UP_SEARCHES);
		await warmUp.finished();
		expect(warmUp.searches).toBe(WARM_UP_SEARCHES);
		expect(searched).toEqual(queries.map((query) => [...query.keys()]));
		// Once per process: a later offer, of any lexicon, runs nothing more.
		warmUp.offer(lexicon, search);
		await warmUp.finished();
		expect(warmUp.searches).toBe(WARM_UP_SEARCHES);

		// A failing search ends a warm-up: the searches that follow warm the code themselves.
		const failing = new SearchWarmUp(1);
		failing.offer(lexicon, () => Promise.reject(new Error("the source was deleted")));
		await failing.finished();
		expect(failing.searches).toBe(0);
	});
});
