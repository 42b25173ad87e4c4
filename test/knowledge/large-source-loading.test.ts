import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { type LexicalChunkRow, lexicalChunkRowsSql, queryLexemes, SourceLexicon } from "../../server/knowledge/index/lexical-index";
import { SourceMatrix, type VectorChunkRow, vectorChunkRowsSql } from "../../server/knowledge/index/vector-cache";
import { fuseRankings } from "../../server/knowledge/search/fuse-rankings";
import { rankLexically } from "../../server/knowledge/search/rank-lexically";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, eventually, pollHealth, search, uploadDocument, waitForDocument } from "./knowledge-helpers";
import { REBUILD_CHANGED_CHUNKS } from "../../server/knowledge/index/source-chunk-cache";
import { WARM_UP_SEARCHES } from "../../server/knowledge/search/search-warm-up";
import { insertSyntheticCorpus, type SyntheticCorpus } from "./synthetic-corpus";

const CHUNKS = 50_000;

/**
 * A source of 50,000 chunks loading for its first search, then changing: what every other user of
 * the process notices (nothing: /healthz and another tenant's search answer meanwhile) and what
 * the searcher gets (the ranking of structures built straight from the rows, as search built them
 * before loading moved off the event loop).
 */
describe("a large knowledge source", () => {
	let platform: TestPlatform;
	let owner: TestWorkspace;
	let neighbour: TestWorkspace;
	let sourceId: string;
	let corpus: SyntheticCorpus;

	beforeAll(async () => {
		platform = await startTestPlatform();
		owner = await platform.createWorkspace();
		neighbour = await platform.createWorkspace();
		sourceId = await createSource(platform, owner.apiKey, "Archive");
		corpus = await insertSyntheticCorpus(platform.databaseUrl, { workspaceId: owner.workspaceId, sourceId }, { chunks: CHUNKS, chunksPerDocument: 1000, sentencesPerChunk: 5 });
	}, 180_000);

	afterAll(async () => {
		await platform?.stop();
	});

	const queries = () => [
		`${corpus.word(40)} ${corpus.word(700)} ${corpus.word(1500)}`,
		`${corpus.word(3)} ${corpus.word(900)}`,
		`${corpus.word(120)} ${corpus.word(2500)} ${corpus.word(10)} ${corpus.word(333)}`,
	];

	/** The held structures rank every query exactly as ones built here from the rows; the API's answer is their fusion. */
	const expectRankingOfTheRows = async (apiResults: { chunkId: string; score: number }[], query: string) => {
		const client = new pg.Client({ connectionString: platform.databaseUrl });
		await client.connect();
		const [lexicalRows, vectorRows] = await Promise.all([
			client.query<LexicalChunkRow>(lexicalChunkRowsSql("all"), [sourceId]),
			client.query<VectorChunkRow>(vectorChunkRowsSql("all"), [sourceId]),
		]).finally(() => client.end());
		const built = { lexicon: SourceLexicon.fromRows(lexicalRows.rows), matrix: SourceMatrix.fromRows(vectorRows.rows) };
		const em = platform.orm.em.fork();
		const source = { id: sourceId, workspace: owner.workspaceId };
		const held = { lexicon: await platform.services.search.lexical.lexiconFor(em, source), matrix: await platform.services.search.vectors.matrixFor(em, source) };
		expect(held.lexicon.size).toBe(built.lexicon.size);
		const lexical = (lexicon: SourceLexicon, terms: Map<string, number>) => rankLexically(lexicon, terms, 50).map((hit) => ({ chunkId: hit.chunkId, score: hit.score }));
		for (const text of queries()) {
			const terms = await queryLexemes(em, text);
			expect(lexical(held.lexicon, terms)).toEqual(lexical(built.lexicon, terms));
			expect(await held.matrix.nearest(embedBuiltin(text), 50)).toEqual(built.matrix.nearest(embedBuiltin(text), 50));
		}
		const semantic = built.matrix.nearest(embedBuiltin(query), 50).filter((hit) => hit.similarity > 0);
		const fused = fuseRankings(
			lexical(built.lexicon, await queryLexemes(em, query)),
			semantic.map((hit) => ({ chunkId: hit.chunkId, score: hit.similarity })),
		);
		expect(apiResults.map((hit) => [hit.chunkId, hit.score])).toEqual(fused.slice(0, apiResults.length).map((hit) => [hit.chunkId, Number(hit.score.toFixed(6))]));
	};

	it("loads for its first search off the event loop: /healthz and another tenant's first search answer meanwhile, concurrent searches share one load", async () => {
		const notes = await createSource(platform, neighbour.apiKey, "Notes");
		const note = await uploadDocument(platform, neighbour.apiKey, notes, "keeper.txt", "The lighthouse keeper writes down every ship that passes the point.");
		await waitForDocument(platform, neighbour.apiKey, notes, note.id, ["READY"]);
		const { lexical, vectors, builders } = platform.services.search;
		const fullLoads = () => lexical.statistics.fullLoads + vectors.statistics.fullLoads;
		const fullLoadsBefore = fullLoads();
		const [query] = queries();

		const health = pollHealth(platform);
		let largeSettled = false;
		const large = Promise.all([1, 2, 3].map(() => search(platform, owner.apiKey, sourceId, { query, topK: 10 })));
		void large.then(
			() => (largeSettled = true),
			() => (largeSettled = true),
		);
		await eventually(async () => builders.load.running > 0 || largeSettled, 30_000, "the large source's load to start");
		const builds = () => builders.completed.lexicon + builders.completed.matrix;
		const buildsBefore = builds();
		const found = await search(platform, neighbour.apiKey, notes, { query: "lighthouse keeper", topK: 3 });
		const buildsDoneWhenNeighbourAnswered = builds() - buildsBefore;
		const results = await large;
		const { slowestMs, answers, failures } = await health.stop();

		expect(failures).toBe(0);
		expect(answers).toBeGreaterThan(10);
		expect(slowestMs).toBeLessThan(1000);
		// Its own source loaded beside the large one rather than queued behind it: when it answered, only
		// its own lexicon and matrix were built, none of the large source's structures.
		expect(found[0]?.documentId).toBe(note.id);
		expect(buildsDoneWhenNeighbourAnswered).toBe(2);
		expect(results[0]).toHaveLength(10);
		expect(results[1]).toEqual(results[0]);
		expect(results[2]).toEqual(results[0]);
		// A lexicon and a matrix for each of the two sources: the three concurrent searches shared one load.
		expect(fullLoads() - fullLoadsBefore).toBe(4);
		await expectRankingOfTheRows(results[0], query);
		// Its first search warmed search's code in the background, once per process: searches of its own words, through the same path (the neighbour's small source started none).
		await platform.services.search.warmUp.finished();
		expect(platform.services.search.warmUp.searches).toBe(WARM_UP_SEARCHES);
	}, 180_000);

	it("takes document changes without a full load: deletions past an eighth re-invert off the event loop, a new document is absorbed", async () => {
		const { lexical, vectors, builders } = platform.services.search;
		const [query] = queries();
		await search(platform, owner.apiKey, sourceId, { query, topK: 10 });
		const fullLoads = lexical.statistics.fullLoads + vectors.statistics.fullLoads;
		const inversions = builders.completed["invert-lexicon"];

		const health = pollHealth(platform);
		// 7 documents of 1,000 chunks: more dead chunks than an eighth of the lexicon.
		for (const documentId of corpus.documentIds.slice(0, 7)) {
			const response = await platform.request("DELETE", `/knowledge/sources/${sourceId}/documents/${documentId}`, { key: owner.apiKey });
			expect(response.status).toBe(200);
		}
		const added = await uploadDocument(platform, owner.apiKey, sourceId, "addendum.txt", "A zyzzyva quokka appendix, filed after the archive was first searched.");
		await waitForDocument(platform, owner.apiKey, sourceId, added.id, ["READY"]);
		const [hit] = await eventually(async () => {
			const results = await search(platform, owner.apiKey, sourceId, { query: "zyzzyva quokka", topK: 3 });
			return results[0]?.documentId === added.id ? results : undefined;
		}, 30_000, "the new document in search results");
		const results = await search(platform, owner.apiKey, sourceId, { query, topK: 10 });
		const { slowestMs, failures } = await health.stop();

		expect(hit.filename).toBe("addendum.txt");
		expect(results.every((result) => !corpus.documentIds.slice(0, 7).includes(result.documentId))).toBe(true);
		expect(failures).toBe(0);
		expect(slowestMs).toBeLessThan(1000);
		expect(lexical.statistics.fullLoads + vectors.statistics.fullLoads).toBe(fullLoads);
		expect(builders.completed["invert-lexicon"]).toBeGreaterThan(inversions);
		await expectRankingOfTheRows(results, query);
	}, 180_000);

	it("after a bulk ingestion into it, is rebuilt on builder threads instead of absorbing the new chunks on the event loop", async () => {
		const { lexical, vectors } = platform.services.search;
		const [query] = queries();
		await search(platform, owner.apiKey, sourceId, { query, topK: 10 });
		const rebuilds = lexical.statistics.rebuilds + vectors.statistics.rebuilds;
		const documentsLoaded = lexical.statistics.documentsLoaded + vectors.statistics.documentsLoaded;

		// 20,000 chunks at once, as an import or a worker catching up would make READY, then the worker's announcement.
		const bulk = await insertSyntheticCorpus(platform.databaseUrl, { workspaceId: owner.workspaceId, sourceId }, { chunks: 10 * REBUILD_CHANGED_CHUNKS, chunksPerDocument: 1000, sentencesPerChunk: 5, seed: 7 });
		await platform.orm.em.getConnection().execute("select pg_notify('knowledge_vectors', ?)", [sourceId]);
		const health = pollHealth(platform);
		const results = await eventually(async () => {
			const found = await search(platform, owner.apiKey, sourceId, { query, topK: 10 });
			return lexical.statistics.rebuilds + vectors.statistics.rebuilds === rebuilds + 2 ? found : undefined;
		}, 60_000, "the rebuilt source");
		const { slowestMs, failures } = await health.stop();

		expect(failures).toBe(0);
		expect(slowestMs).toBeLessThan(1000);
		// Nothing absorbed document by document: both structures were built again from the rows.
		expect(lexical.statistics.documentsLoaded + vectors.statistics.documentsLoaded).toBe(documentsLoaded);
		const words = (await search(platform, owner.apiKey, sourceId, { query: `${bulk.word(77)} ${bulk.word(1200)}`, topK: 20 })).map((hit) => hit.documentId);
		expect(words.some((documentId) => bulk.documentIds.includes(documentId))).toBe(true);
		await expectRankingOfTheRows(results, query);
	}, 240_000);
});

/**
 * Chunks written in bulk leave PostgreSQL without statistics of them where autovacuum is off or
 * has not come round yet (off on this machine): the first load of a source, which reads its every
 * chunk, analyses the knowledge tables first, so it reads them with a plan for their size (without,
 * a 1M source's first page took about 100 s: db/planner-statistics.ts).
 */
describe("a source ingested in bulk into tables never analysed", () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startTestPlatform();
	});

	afterAll(async () => {
		await platform?.stop();
	});

	it("has them analysed by its first search's load, and answers it", async () => {
		const owner = await platform.createWorkspace();
		const sourceId = await createSource(platform, owner.apiKey, "Bulk");
		const corpus = await insertSyntheticCorpus(platform.databaseUrl, { workspaceId: owner.workspaceId, sourceId }, { chunks: 6000, chunksPerDocument: 500, sentencesPerChunk: 4, analyze: false });
		const client = new pg.Client({ connectionString: platform.databaseUrl });
		await client.connect();
		const statistics = async () =>
			(
				await client.query<{ analysed: boolean; estimated: number }>(
					"select s.last_analyze is not null or s.last_autoanalyze is not null as analysed, c.reltuples::float8 as estimated from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'knowledge_chunks'",
				)
			).rows[0];
		try {
			// Backends report their inserts to the statistics a moment after they commit.
			await eventually(async () => Number((await client.query("select n_mod_since_analyze from pg_stat_user_tables where relname = 'knowledge_chunks'")).rows[0].n_mod_since_analyze) >= 6000, 10_000, "the inserts to be counted");
			const before = await statistics();
			// Where autovacuum runs, it may have analysed them already: then there is nothing to show.
			if (!before.analysed) expect(before.estimated).toBeLessThanOrEqual(0);
			const results = await search(platform, owner.apiKey, sourceId, { query: `${corpus.word(5)} ${corpus.word(300)}`, topK: 5 });
			expect(results).toHaveLength(5);
			const after = await statistics();
			expect(after.analysed).toBe(true);
			expect(after.estimated).toBe(6000);
		} finally {
			await client.end();
		}
	}, 120_000);
});
