import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	type ColumnRankingOptions,
	DEFAULT_COLUMN_RANKING,
	invertLexicon,
	type LexicalChunkRow,
	LexicalIndexCache,
	lexicalChunkRowsSql,
	queryLexemes,
	SourceLexicon,
} from "../../server/knowledge/index/lexical-index";
import { buildLexiconFile } from "../../server/knowledge/index/lexicon-build";
import { readLexiconFile, writeLexiconFile } from "../../server/knowledge/index/lexicon-files";
import { currentGeneration, sourceLexiconDirectory } from "../../server/knowledge/index/index-generations";
import { DEFAULT_INDEX_BUILDER_LIMITS } from "../../server/knowledge/index/index-builder-pool";
import { LexiconPieces } from "../../server/knowledge/index/lexicon-pieces";
import { SearchMemoryBudget } from "../../server/knowledge/index/search-memory-budget";
import { rankLexically } from "../../server/knowledge/search/rank-lexically";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../../server/knowledge/options";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, search, uploadDocument, waitForDocument } from "./knowledge-helpers";
import { insertSyntheticCorpus, type SyntheticCorpus } from "./synthetic-corpus";
import { deltaOf, zipfCorpus } from "./zipf-lexicon-corpus";

const CHUNKS = 3000;

/**
 * A lexicon opened in pieces keeps its postings and pairs in the file and reads them as a search
 * needs them: everything it answers must be what the lexicon written to the file answers, through
 * the removals and additions a cache absorbs, for far less memory.
 */
describe("a lexicon opened in pieces", () => {
	it("reads a query's lists once: lists the previous read holds are used where they are, the others read after them, and every list is the file's", async () => {
		const directory = await mkdtemp(join(tmpdir(), "lexicon-lists-test-"));
		try {
			const corpus = zipfCorpus(41, 2000);
			const lexicon = SourceLexicon.fromRows(Array.from({ length: 800 }, (_, index) => corpus.documentRows(`doc${index}`, 0)).flat());
			const written = lexicon.toTransfer().transfer;
			writeLexiconFile(directory, "source", written);
			const location = readLexiconFile(directory, "source", { inPieces: true })?.transfer.pieces;
			expect(location).toBeDefined();
			const pieces = new LexiconPieces(location!);
			const { offsets, postings, frequencies } = written;
			const termCount = offsets.length - 1;
			const rangeOf = (term: number) => ({ start: offsets[term], end: offsets[term + 1] });
			const expectFileContent = (terms: number[], lists: ReturnType<LexiconPieces["postingLists"]>) => {
				expect(lists).not.toBeNull();
				terms.forEach((term, index) => {
					const { slots, frequencies: counts, start, end } = lists![index];
					const { start: from, end: to } = rangeOf(term);
					expect(Array.from(slots.subarray(start, end))).toEqual(Array.from(postings.subarray(from, to)));
					expect(Array.from(counts.subarray(start, end))).toEqual(Array.from(frequencies.subarray(from, to)));
				});
				return lists!;
			};
			// A first pass over the most frequent terms, then a second with them and others (RM3): the shared lists stay where they were.
			const first = [0, 1, 2];
			const firstLists = expectFileContent(first, pieces.postingLists(first.map(rangeOf)));
			const positions = firstLists.map((list) => list.start);
			const second = [5, 1, 0, 9, 2, 14];
			const secondLists = expectFileContent(second, pieces.postingLists(second.map(rangeOf)));
			expect([secondLists[2].start, secondLists[1].start, secondLists[4].start]).toEqual(positions);
			// A read given up half way (a ranking in slices started again while paused) keeps nothing: the next read
			// holds the file's lists, not what the given-up one wrote over them.
			expectFileContent([0, 1], pieces.postingLists([0, 1].map(rangeOf)));
			const givenUp = pieces.postingListsSteps([2, 3].map(rangeOf));
			expect(givenUp.next().done).toBe(false);
			givenUp.return(null);
			expectFileContent([0], pieces.postingLists([0].map(rangeOf)));
			// Random sets of terms in turn, an exhaustive read (another buffer use) between some: always the file's content.
			for (let round = 0; round < 200; round++) {
				const terms = [...new Set(Array.from({ length: 1 + Math.floor(corpus.random() * 6) }, () => Math.floor(termCount * corpus.random() ** 3)))];
				expectFileContent(terms, pieces.postingLists(terms.map(rangeOf)));
				if (round % 7 === 0) {
					const term = Math.floor(termCount * corpus.random());
					const single = pieces.postings(offsets[term], offsets[term + 1]);
					expect(Array.from(single.slots.subarray(single.start, single.end))).toEqual(Array.from(postings.subarray(offsets[term], offsets[term + 1])));
				}
			}
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	});

	// Its frequent words' columns (impact-top-k.ts) are made from the lists it reads: ranked with them always, against the in-memory lexicon's lists.
	it.each([
		["its lists", { mode: "never" }],
		["its frequent words as columns", { mode: "always", minimumSlots: 0 }],
	] as [string, Partial<ColumnRankingOptions>][])("ranks with %s exactly as the lexicon it was written from (plain, exhaustive, expanded), through removals and additions, in a fraction of its memory", async (_way, columnRanking) => {
		const directory = await mkdtemp(join(tmpdir(), "lexicon-pieces-test-"));
		try {
			const corpus = zipfCorpus(21, 3000);
			const documents = new Set<string>();
			const rows = Array.from({ length: 1500 }, (_, index) => (documents.add(`doc${index}`), corpus.documentRows(`doc${index}`, 0))).flat();
			const inMemory = SourceLexicon.fromRows(rows);
			writeLexiconFile(directory, "source", SourceLexicon.fromRows(rows).toTransfer().transfer);
			const opened = readLexiconFile(directory, "source", { inPieces: true });
			expect(opened?.transfer.pieces).toBeDefined();
			const pieces = await SourceLexicon.fromTransfer(opened!.transfer);
			pieces.columnRanking = { ...DEFAULT_COLUMN_RANKING, ...columnRanking };
			expect(pieces.inPieces).toBe(true);
			expect(pieces.memoryBytes()).toBeLessThan(inMemory.memoryBytes() / 2);

			const queries = Array.from({ length: 30 }, (_, index) => corpus.query(index % 2 === 1));
			const answers = (lexicon: SourceLexicon) =>
				queries.flatMap((query) =>
					[1, 10, 50].map((limit) => {
						const hits = (found: { chunkId: string; score: number }[]) => found.map((hit) => [hit.chunkId, hit.score]);
						return [hits(lexicon.rank(query, limit)), hits(lexicon.rankExhaustive(query, limit)), hits(rankLexically(lexicon, query, limit))];
					}),
				);
			expect(answers(pieces)).toEqual(answers(inMemory));

			let compactions = 0;
			for (let round = 1; round <= 700; round++) {
				const id = `doc${Math.floor(corpus.random() * 1700)}`;
				const removed = documents.has(id) ? [id] : [];
				documents.delete(id);
				const added = corpus.random() < 0.2 ? [] : corpus.documentRows(id, round);
				if (added.length) documents.add(id);
				const delta = added.length ? deltaOf(added) : null;
				inMemory.absorb(removed, delta);
				pieces.absorb(removed, delta);
				// The in-memory lexicon re-inverts as a cache would; the one in pieces waits for its next file.
				if (inMemory.compactionDue) {
					inMemory.completeCompaction(invertLexicon(structuredClone(inMemory.pairs())));
					compactions++;
				}
				if (round % 175 === 0) expect(answers(pieces)).toEqual(answers(inMemory));
			}
			expect(compactions).toBeGreaterThan(0);
			expect(pieces.rankingsWithColumns > 0).toBe(columnRanking.mode === "always");
			expect(inMemory.rankingsWithColumns).toBe(0);
			expect(pieces.size).toBe(inMemory.size);
			expect(pieces.compactionDue).toBe(true);
			expect(() => pieces.pairs()).toThrow();
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	});
});

/**
 * A source past lexiconFileMinChunks with an index directory keeps its lexicon in a file: a
 * restarted process (or another one on the same database and directory) reads the file for its
 * first search instead of rebuilding from every chunk, reads from PostgreSQL only the documents
 * changed since, and ranks exactly as a lexicon built from the rows would.
 */
describe("a lexicon file built with bounded memory", () => {
	it("is the file an in-memory build writes, byte for byte, whatever its limits; and leaves no scratch behind", async () => {
		const directory = await mkdtemp(join(tmpdir(), "lexicon-build-test-"));
		try {
			const corpus = zipfCorpus(17, 3000);
			// Pages as a builder thread reads them; chunks with no lexemes at all among them.
			const pages = Array.from({ length: 12 }, (_, page) =>
				Array.from({ length: 40 }, (_, index) => corpus.documentRows(`doc${page}-${index}`, 0))
					.flat()
					.map((row, index) => (index % 37 === 5 ? { ...row, lexemes: "", heading_lexemes: null } : row)),
			);
			const fileOf = async (sourceId: string) => {
				const sourceDirectory = sourceLexiconDirectory(directory, sourceId);
				return readFile(join(sourceDirectory, `${currentGeneration(sourceDirectory)}.lexicon`));
			};
			const inMemory = new SourceLexicon();
			for (const page of pages) inMemory.addRows(page);
			inMemory.settle();
			writeLexiconFile(directory, "in-memory", inMemory.toTransfer().transfer);
			const expected = await fileOf("in-memory");
			// Tiny limits (many spills, one pass per few terms, a pass of a single term longer than its limit), and the defaults (one pass).
			for (const [sourceId, limits] of [
				["tiny", { spillPairs: 500, passPostings: 300 }],
				["default", undefined],
			] as const) {
				async function* rows() {
					for (const page of pages) yield page;
				}
				const built = await buildLexiconFile(directory, sourceId, rows(), limits);
				expect(built.chunks).toBe(inMemory.size);
				expect((await fileOf(sourceId)).equals(expected)).toBe(true);
				expect((await readdir(sourceLexiconDirectory(directory, sourceId))).filter((file) => file.includes("build"))).toEqual([]);
			}
			// And it opens and ranks as the in-memory lexicon.
			const opened = readLexiconFile(directory, "tiny", { inPieces: true });
			const lexicon = await SourceLexicon.fromTransfer(opened!.transfer);
			for (let index = 0; index < 30; index++) {
				const query = corpus.query(index % 2 === 0);
				expect(rankLexically(lexicon, query, 20)).toEqual(rankLexically(inMemory, query, 20));
			}
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	});
});

/**
 * Past a size, a lexicon file also holds its frequent words' columns, made by its builder: a
 * ranking of a lexicon opened in pieces reads a word's columns instead of reading its postings and
 * making them on the API's thread (the slowest part of a first search of frequent words at a
 * million chunks). They must be the very columns the ranking would make, so it ranks the same.
 */
describe("a lexicon file's frequent words' columns", () => {
	it("are the bytes a ranking would make, read instead of made, and rank exactly as the exhaustive ranking", async () => {
		const directory = await mkdtemp(join(tmpdir(), "lexicon-columns-test-"));
		try {
			const corpus = zipfCorpus(29, 800);
			const pages = Array.from({ length: 10 }, (_, page) => Array.from({ length: 300 }, (_, index) => corpus.documentRows(`doc${page}-${index}`, 0)).flat());
			async function* rows() {
				for (const page of pages) yield page;
			}
			const thresholds = { minimumSlots: 1000, frequentShare: 1 / 3 };
			// Tiny limits: a word's postings and columns are written across many passes.
			await buildLexiconFile(directory, "with-columns", rows(), { spillPairs: 700, passPostings: 900 }, thresholds);
			await buildLexiconFile(directory, "without-columns", rows());
			const open = async (sourceId: string) => {
				const opened = readLexiconFile(directory, sourceId, { inPieces: true })!;
				const lexicon = await SourceLexicon.fromTransfer(opened.transfer);
				lexicon.columnRanking = { ...DEFAULT_COLUMN_RANKING, ...thresholds, mode: "always" };
				return { lexicon, columnTerms: opened.transfer.columnTerms.length };
			};
			const read = await open("with-columns");
			const made = await open("without-columns");
			expect(read.columnTerms).toBeGreaterThan(5);
			expect(made.columnTerms).toBe(0);
			const inMemory = new SourceLexicon();
			for (const page of pages) inMemory.addRows(page);
			inMemory.settle();
			expect(read.lexicon.size).toBe(inMemory.size);
			const frequentWords = Array.from({ length: 200 }, (_, index) => `t${index}`).filter((word) => inMemory.documentFrequencyOf(word) >= inMemory.size * thresholds.frequentShare);
			expect(frequentWords.length).toBe(read.columnTerms);
			// Queries of frequent words (two or three, with a rarer one now and then) and the corpus's own.
			const queries = [
				...Array.from({ length: 24 }, (_, index) => new Map(Array.from({ length: 2 + (index % 2) }, (_, word) => [frequentWords[(index * 5 + word * 3) % frequentWords.length], 1] as [string, number]).concat(index % 3 === 0 ? [[`t${100 + index}`, 1]] : []))),
				...Array.from({ length: 16 }, (_, index) => corpus.query(index % 2 === 1)),
			];
			for (const query of queries) {
				const expected = inMemory.rankExhaustive(query, 20);
				expect(read.lexicon.rank(query, 20)).toEqual(expected);
				expect(made.lexicon.rank(query, 20)).toEqual(expected);
			}
			expect(read.lexicon.columnsRead).toBe(frequentWords.length);
			expect(read.lexicon.columnsMade).toBe(0);
			expect(made.lexicon.columnsMade).toBe(frequentWords.length);
			expect(made.lexicon.columnsRead).toBe(0);
			for (const word of frequentWords) {
				const fromFile = read.lexicon.heldColumnsOf(word);
				const ofRanking = made.lexicon.heldColumnsOf(word);
				expect(fromFile).not.toBeNull();
				expect(Buffer.from(fromFile!.frequencies).equals(Buffer.from(ofRanking!.frequencies))).toBe(true);
				expect(Buffer.from(fromFile!.impacts.buffer).equals(Buffer.from(ofRanking!.impacts.buffer))).toBe(true);
			}
			// Read whole (as a test or a tool may), a file's columns are left out: the lexicon makes its own.
			const whole = readLexiconFile(directory, "with-columns");
			expect(whole!.transfer.columns.length).toBe(0);
			expect(whole!.transfer.columnTerms.length).toBe(0);
		} finally {
			await rm(directory, { recursive: true, force: true });
		}
	});
});

describe("a source's lexicon kept in a file", () => {
	let indexDirectory: string;
	let first: TestPlatform;
	let second: TestPlatform | undefined;
	let workspace: TestWorkspace;
	let sourceId: string;
	let corpus: SyntheticCorpus;
	let lighthouseId: string;
	const knowledge = () => ({ ...DEFAULT_KNOWLEDGE_OPTIONS, indexDirectory, lexiconFileMinChunks: 1000 });
	const lexiconDirectory = () => join(indexDirectory, "lexicon", sourceId);
	const source = () => ({ id: sourceId, workspace: workspace.workspaceId });
	const queries = () => [
		`${corpus.word(40)} ${corpus.word(700)} ${corpus.word(1500)}`,
		`${corpus.word(3)} ${corpus.word(900)}`,
		`${corpus.word(120)} ${corpus.word(2500)} ${corpus.word(10)}`,
		"lighthouse keeper journal",
	];
	/** A fresh cache over the first platform's database and threads, as a restarted process has. */
	const freshCache = (foldChunks = 2000) => {
		const { services } = first;
		return new LexicalIndexCache(services.notifications, services.search.builders, new SearchMemoryBudget(512 * 1024 ** 2), `files-test-${Math.random()}:`, {
			directory: indexDirectory,
			minChunks: 1000,
			foldChunks,
		});
	};
	/** The lexicon built from the source's rows as they are now: the reference ranking. */
	const builtFromRows = async () => {
		const client = new pg.Client({ connectionString: first.databaseUrl });
		await client.connect();
		try {
			return SourceLexicon.fromRows((await client.query<LexicalChunkRow>(lexicalChunkRowsSql("all"), [sourceId])).rows);
		} finally {
			await client.end();
		}
	};
	const expectSameRanking = async (lexicon: SourceLexicon, reference: SourceLexicon) => {
		expect(lexicon.size).toBe(reference.size);
		for (const text of queries()) {
			const terms = await queryLexemes(first.orm.em.fork(), text);
			const found = lexicon.rank(terms, 20);
			const expected = reference.rank(terms, 20);
			expect(found.map((hit) => hit.score)).toEqual(expected.map((hit) => hit.score));
			expect(new Set(found.map((hit) => hit.chunkId))).toEqual(new Set(expected.map((hit) => hit.chunkId)));
		}
	};
	const generations = async () => (await readdir(lexiconDirectory())).filter((file) => file.endsWith(".lexicon"));

	beforeAll(async () => {
		indexDirectory = await mkdtemp(join(tmpdir(), "lexicon-files-test-"));
		first = await startTestPlatform({ knowledge: knowledge() });
		// An empty directory: no thread is started before a search needs one.
		expect(first.services.search.builders.threadsStarted).toBe(0);
		workspace = await first.createWorkspace();
		sourceId = await createSource(first, workspace.apiKey, "Filed");
		corpus = await insertSyntheticCorpus(first.databaseUrl, { workspaceId: workspace.workspaceId, sourceId }, { chunks: CHUNKS, chunksPerDocument: 300, sentencesPerChunk: 4 });
	}, 120_000);

	afterAll(async () => {
		await second?.stop();
		await first?.stop();
		await rm(indexDirectory, { recursive: true, force: true });
	});

	it("is written by the first search's build; another process reads it for its first search, reads only what changed since, and answers exactly the same", async () => {
		const lexical = first.services.search.lexical;
		expect(await search(first, workspace.apiKey, sourceId, { query: queries()[0] })).not.toHaveLength(0);
		expect(lexical.statistics.fullLoads).toBe(1);
		expect(lexical.fileStatistics.written).toBe(1);
		expect(await generations()).toHaveLength(1);
		// What the first search built came back in pieces: its postings and pairs stay in the file.
		expect((await lexical.lexiconFor(first.orm.em.fork(), source())).inPieces).toBe(true);

		// Changes after the file: one document added, one removed.
		const lighthouse = await uploadDocument(first, workspace.apiKey, sourceId, "lighthouse.txt", "The lighthouse keeper logs every passing ship in a leather journal.");
		await waitForDocument(first, workspace.apiKey, sourceId, lighthouse.id, ["READY"]);
		lighthouseId = lighthouse.id;
		expect((await first.request("DELETE", `/knowledge/sources/${sourceId}/documents/${corpus.documentIds[0]}`, { key: workspace.apiKey })).status).toBe(200);
		const expected = [];
		for (const query of queries()) expected.push(await search(first, workspace.apiKey, sourceId, { query }));
		expect(expected[3].map((hit) => hit.documentId)).toContain(lighthouse.id);

		second = await startTestPlatform({ databaseUrl: first.databaseUrl, dataDirectory: first.dataDirectory, knowledge: knowledge() });
		// Started on a directory holding a lexicon file: the threads that open it are started before any search asks.
		expect(second.services.search.builders.threadsStarted).toBe(DEFAULT_INDEX_BUILDER_LIMITS.idleThreads);
		for (const [position, query] of queries().entries()) {
			expect((await search(second, workspace.apiKey, sourceId, { query })).map((hit) => [hit.chunkId, hit.score])).toEqual(expected[position].map((hit) => [hit.chunkId, hit.score]));
		}
		const restored = second.services.search.lexical.statistics;
		expect(restored).toMatchObject({ fullLoads: 0, restoredLoads: 1, documentsLoaded: 1, documentsRemoved: 1 });
		await expectSameRanking(await second.services.search.lexical.lexiconFor(second.orm.em.fork(), source()), await builtFromRows());
	}, 120_000);

	it("a fresh cache opens the file, and once the changes since reach foldChunks writes a new one on a builder thread that the next process opens with nothing to read", async () => {
		const before = await generations();
		const cache = freshCache(1);
		const lexicon = await cache.lexiconFor(first.orm.em.fork(), source());
		expect(cache.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 1, documentsLoaded: 1 });
		const { documentsLoaded, documentsRemoved, refreshes } = cache.statistics;
		await expect.poll(() => cache.fileStatistics.adopted, { timeout: 60_000 }).toBe(1);
		expect(cache.fileStatistics.written).toBe(1);
		// The new generation replaced what the cache held, in pieces; it is up to date (nothing changed since the fold).
		expect(lexicon.inPieces).toBe(true);
		expect(lexicon.epoch).toBe(1);
		expect(await cache.lexiconFor(first.orm.em.fork(), source())).toBe(lexicon);
		expect(cache.statistics).toMatchObject({ documentsLoaded, documentsRemoved, refreshes: refreshes + 1 });
		const after = await generations();
		const folded = after.filter((file) => !before.includes(file));
		expect(folded).toHaveLength(1);
		// The fold (bounded memory: the base read in pieces, the pairs spilled) wrote exactly what
		// folding in memory writes: the previous generation whole, the deleted document removed, the added one's rows added, compacted.
		const previous = readLexiconFile(indexDirectory, sourceId, { name: before[0].replace(/\.lexicon$/, "") });
		const inMemory = await SourceLexicon.fromTransfer(previous!.transfer);
		const client = new pg.Client({ connectionString: first.databaseUrl });
		await client.connect();
		try {
			inMemory.absorb([corpus.documentIds[0]], null);
			inMemory.addRows((await client.query<LexicalChunkRow>(lexicalChunkRowsSql("some"), [sourceId, [lighthouseId]])).rows);
		} finally {
			await client.end();
		}
		inMemory.compact();
		const referenceRoot = await mkdtemp(join(tmpdir(), "lexicon-fold-reference-"));
		try {
			const referenceName = writeLexiconFile(referenceRoot, sourceId, inMemory.toTransfer().transfer);
			const reference = await readFile(join(referenceRoot, "lexicon", sourceId, `${referenceName}.lexicon`));
			expect((await readFile(join(lexiconDirectory(), folded[0]))).equals(reference)).toBe(true);
		} finally {
			await rm(referenceRoot, { recursive: true, force: true });
		}

		const next = freshCache();
		const reopened = await next.lexiconFor(first.orm.em.fork(), source());
		expect(next.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 1, documentsLoaded: 0, documentsRemoved: 0 });
		const reference = await builtFromRows();
		await expectSameRanking(reopened, reference);
		await expectSameRanking(lexicon, reference);
	}, 120_000);

	it("a damaged file is not trusted: the source builds from PostgreSQL, ranks as before, and gets a new file", async () => {
		const name = (await readFile(join(lexiconDirectory(), "current"), "utf8")).trim();
		const path = join(lexiconDirectory(), `${name}.lexicon`);
		const bytes = await readFile(path);
		await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
		const cache = freshCache();
		const lexicon = await cache.lexiconFor(first.orm.em.fork(), source());
		expect(cache.statistics).toMatchObject({ fullLoads: 1, restoredLoads: 0 });
		expect(cache.fileStatistics.written).toBe(1);
		await expectSameRanking(lexicon, await builtFromRows());
		expect((await readFile(join(lexiconDirectory(), "current"), "utf8")).trim()).not.toBe(name);
	}, 120_000);

	it("deleting the source removes its lexicon files", async () => {
		expect(existsSync(lexiconDirectory())).toBe(true);
		expect((await first.request("DELETE", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey })).status).toBe(200);
		expect(existsSync(lexiconDirectory())).toBe(false);
	});
});
