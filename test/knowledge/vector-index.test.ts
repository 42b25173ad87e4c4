import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { SearchMemoryBudget } from "../../server/knowledge/index/search-memory-budget";
import { SourceMatrix, VectorCache, type VectorChunkRow, vectorChunkRowsSql } from "../../server/knowledge/index/vector-cache";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../../server/knowledge/options";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, eventually, search, uploadDocument, waitForDocument } from "./knowledge-helpers";
import { insertSyntheticCorpus, type SyntheticCorpus } from "./synthetic-corpus";

const CHUNKS = 3000;

/**
 * A source past vectorIndexMinChunks with an index directory: searched through index files built
 * on a builder thread (int8 column runs for builtin vectors, an HNSW graph for a provider's), kept
 * exact on deletes, and opened again (not rebuilt) by another process or a fresh cache over the
 * same database and directory.
 */
describe("a source searched through vector index files", () => {
	let indexDirectory: string;
	let first: TestPlatform;
	let second: TestPlatform | undefined;
	let workspace: TestWorkspace;
	let sourceId: string;
	let corpus: SyntheticCorpus;
	const knowledge = () => ({ ...DEFAULT_KNOWLEDGE_OPTIONS, indexDirectory, vectorIndexMinChunks: 1000 });

	beforeAll(async () => {
		indexDirectory = await mkdtemp(join(tmpdir(), "vector-index-test-"));
		first = await startTestPlatform({ knowledge: knowledge() });
		workspace = await first.createWorkspace();
		sourceId = await createSource(first, workspace.apiKey, "Indexed");
		corpus = await insertSyntheticCorpus(first.databaseUrl, { workspaceId: workspace.workspaceId, sourceId }, { chunks: CHUNKS, chunksPerDocument: 300, sentencesPerChunk: 4 });
	}, 120_000);

	afterAll(async () => {
		await second?.stop();
		await first?.stop();
		await rm(indexDirectory, { recursive: true, force: true });
	});

	const source = () => ({ id: sourceId, workspace: workspace.workspaceId });
	const queries = () => [
		`${corpus.word(40)} ${corpus.word(700)} ${corpus.word(1500)}`,
		`${corpus.word(3)} ${corpus.word(900)}`,
		`${corpus.word(120)} ${corpus.word(2500)} ${corpus.word(10)}`,
		`${corpus.word(77)} ${corpus.word(1200)}`,
	];
	/** Every dimension non-zero, as a provider's embedding of the query would be. */
	const denseQueries = () =>
		queries().map((text) => {
			const sparse = embedBuiltin(text);
			const dense = Float32Array.from(sparse, (value, dimension) => value + 0.02 * Math.sin(dimension * 7.1 + text.length));
			const norm = Math.hypot(...dense);
			return dense.map((value) => value / norm);
		});
	const withClient = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
		const client = new pg.Client({ connectionString: first.databaseUrl });
		await client.connect();
		try {
			return await work(client);
		} finally {
			await client.end();
		}
	};
	const exactMatrix = (id = sourceId) => withClient(async (client) => SourceMatrix.fromRows((await client.query<VectorChunkRow>(vectorChunkRowsSql("all"), [id])).rows));
	const chunksOf = async (documentId: string) => {
		const client = new pg.Client({ connectionString: first.databaseUrl });
		await client.connect();
		try {
			return (await client.query<{ id: string }>("select id from knowledge_chunks where document_id = $1", [documentId])).rows.map((row) => row.id);
		} finally {
			await client.end();
		}
	};

	it("a builtin source past the threshold gets column runs (no graph) on a builder thread before its first search, ranks exactly, and never returns a deleted document", async () => {
		const cache = first.services.search.vectors;
		const { builders } = first.services.search;
		const matrixLoads = builders.completed.matrix;
		const em = first.orm.em.fork();
		const held = await cache.matrixFor(em, source());
		// No exact matrix of the whole source was read: the generation was written first, then opened.
		expect(builders.completed.matrix).toBe(matrixLoads);
		expect(held.approximate?.hasGraph).toBe(false);
		expect(held.size).toBe(CHUNKS);
		expect(cache.indexStatistics.builds).toBe(1);
		const files = await readdir(join(indexDirectory, "vectors", sourceId));
		expect(files.some((file) => file.endsWith(".usearch"))).toBe(false);
		expect(files.some((file) => file.endsWith(".i8"))).toBe(true);

		const exact = await exactMatrix(sourceId);
		const { graphs } = builders;
		const graphSearches = graphs.searches;
		const columnScans = graphs.columnScans;
		for (const text of queries()) {
			const query = embedBuiltin(text);
			const truth = exact.nearest(query, CHUNKS);
			const similarityOf = new Map(truth.map((hit) => [hit.chunkId, hit.similarity]));
			const found = await held.nearest(query, 50);
			expect(found).toHaveLength(50);
			// Rescored exactly: each hit's similarity is the float32 dot product.
			for (const hit of found) expect(hit.similarity).toBeCloseTo(similarityOf.get(hit.chunkId) ?? Number.NaN, 5);
			// A builtin query is sparse: the int8 columns are scanned exactly, so the 50 nearest are the exact 50 nearest
			// (up to ties at the 50th similarity).
			const fiftieth = truth[49].similarity;
			const best = new Set(truth.filter((hit) => hit.similarity > fiftieth + 1e-6).map((hit) => hit.chunkId));
			expect(found.filter((hit) => best.has(hit.chunkId))).toHaveLength(best.size);
			expect(found.every((hit) => hit.similarity >= fiftieth - 1e-6)).toBe(true);
		}
		// Searched on the graph-search thread, not on the API's event loop, by the column scan.
		expect(graphs.searches).toBe(graphSearches + queries().length);
		expect(graphs.columnScans).toBe(columnScans + queries().length);

		// A dense query (every dimension) has no graph to walk here: its heaviest dimensions find candidates, rescored exactly.
		let recalled = 0;
		for (const query of denseQueries()) {
			const truth = exact.nearest(query, 10);
			const found = await held.nearest(query, 10);
			recalled += found.filter((hit) => truth.some((best) => best.chunkId === hit.chunkId)).length / 10;
		}
		expect(recalled / queries().length).toBeGreaterThanOrEqual(0.9);

		const deletedDocument = corpus.documentIds[0];
		const deletedChunks = new Set(await chunksOf(deletedDocument));
		expect((await first.request("DELETE", `/knowledge/sources/${sourceId}/documents/${deletedDocument}`, { key: workspace.apiKey })).status).toBe(200);
		const afterDelete = await eventually(async () => {
			const vectors = await cache.matrixFor(first.orm.em.fork(), source());
			return vectors.size === CHUNKS - deletedChunks.size && vectors;
		});
		for (const text of queries()) {
			const found = await afterDelete.nearest(embedBuiltin(text), 300);
			expect(found.length).toBeGreaterThan(0);
			expect(found.filter((hit) => deletedChunks.has(hit.chunkId))).toEqual([]);
		}

		const lighthouse = await uploadDocument(first, workspace.apiKey, sourceId, "lighthouse.txt", "The lighthouse keeper logs every passing ship in a leather journal.");
		await waitForDocument(first, workspace.apiKey, sourceId, lighthouse.id, ["READY"]);
		expect((await search(first, workspace.apiKey, sourceId, { query: "lighthouse keeper journal" })).map((hit) => hit.documentId)).toContain(lighthouse.id);
		// The new document is searched exactly beside the columns, without a rebuild.
		expect(cache.indexStatistics.builds).toBe(1);
	}, 120_000);

	it("a source of dense queries (a provider's embeddings) is searched exactly until its HNSW graph is built off the event loop, then through the graph with high recall", async () => {
		const denseSource = await createSource(first, workspace.apiKey, "Provider-embedded");
		await insertSyntheticCorpus(first.databaseUrl, { workspaceId: workspace.workspaceId, sourceId: denseSource }, { chunks: CHUNKS, chunksPerDocument: 300, sentencesPerChunk: 4, seed: 7 });
		// As a source created with a provider's model would be (its vectors are stored the same way).
		await withClient((client) => client.query("update knowledge_sources set embedding_provider = 'openai', embedding_model = 'text-embedding-3-small' where id = $1", [denseSource]));
		const cache = first.services.search.vectors;
		const builds = cache.indexStatistics.builds;
		const em = first.orm.em.fork();
		const before = await cache.matrixFor(em, { id: denseSource, workspace: workspace.workspaceId });
		expect(before.approximate).toBeNull();
		const exactMatrixBefore = before.tail;
		expect(exactMatrixBefore.size).toBe(CHUNKS);
		await eventually(async () => cache.indexStatistics.builds >= builds + 1, 60_000, "the HNSW index built");
		const held = await cache.matrixFor(em, { id: denseSource, workspace: workspace.workspaceId });
		expect(held.approximate?.hasGraph).toBe(true);
		// The exact matrix the graph replaced holds nothing any more, and was freed on a builder thread (at a
		// million chunks, unmapping its 2 GB on the API's thread held the event loop for 130 ms).
		expect(exactMatrixBefore.size).toBe(0);
		expect(exactMatrixBefore.nearest(denseQueries()[0], 5)).toEqual([]);
		await eventually(async () => first.services.search.builders.completed["release-buffers"] >= 1, 10_000, "the exact matrix freed on a builder thread");
		expect(held.size).toBe(CHUNKS);
		expect((await readdir(join(indexDirectory, "vectors", denseSource))).some((file) => file.endsWith(".usearch"))).toBe(true);

		const exact = await exactMatrix(denseSource);
		const { graphs } = first.services.search.builders;
		const graphSearches = graphs.searches;
		const columnScans = graphs.columnScans;
		let recalled = 0;
		for (const query of denseQueries()) {
			const truth = exact.nearest(query, CHUNKS);
			const similarityOf = new Map(truth.map((hit) => [hit.chunkId, hit.similarity]));
			const found = await held.nearest(query, 50);
			expect(found).toHaveLength(50);
			for (const hit of found) expect(hit.similarity).toBeCloseTo(similarityOf.get(hit.chunkId) ?? Number.NaN, 5);
			const best = new Set(truth.slice(0, 50).map((hit) => hit.chunkId));
			recalled += found.filter((hit) => best.has(hit.chunkId)).length / 50;
		}
		expect(recalled / queries().length).toBeGreaterThanOrEqual(0.8);
		// The graph was walked on its own thread, not on the API's event loop; no column scan.
		expect(graphs.searches).toBe(graphSearches + queries().length);
		expect(graphs.columnScans).toBe(columnScans);
		expect((await first.request("DELETE", `/knowledge/sources/${denseSource}`, { key: workspace.apiKey })).status).toBe(200);
	}, 120_000);

	it("another process over the same database and directory opens the file for its first search: same results, no full load; each sees the other's changes", async () => {
		const texts = [...queries(), "lighthouse keeper journal"];
		const expected = [];
		for (const query of texts) expected.push(await search(first, workspace.apiKey, sourceId, { query }));

		second = await startTestPlatform({ databaseUrl: first.databaseUrl, dataDirectory: first.dataDirectory, knowledge: knowledge() });
		const vectors = second.services.search.vectors;
		for (const [position, query] of texts.entries()) {
			expect((await search(second, workspace.apiKey, sourceId, { query })).map((hit) => [hit.chunkId, hit.score])).toEqual(expected[position].map((hit) => [hit.chunkId, hit.score]));
		}
		expect(vectors.statistics.fullLoads).toBe(0);
		expect(vectors.statistics.restoredLoads).toBe(1);
		// Only what changed since the file was written was read: the uploaded document (the deleted one only left).
		expect(vectors.statistics.documentsLoaded).toBe(1);

		const orchard = await uploadDocument(second, workspace.apiKey, sourceId, "orchard.txt", "The orchard grows quinces and medlars along the southern wall.");
		await waitForDocument(second, workspace.apiKey, sourceId, orchard.id, ["READY"]);
		expect((await search(first, workspace.apiKey, sourceId, { query: "quinces medlars orchard" })).map((hit) => hit.documentId)).toContain(orchard.id);
		expect((await first.request("DELETE", `/knowledge/sources/${sourceId}/documents/${orchard.id}`, { key: workspace.apiKey })).status).toBe(200);
		expect((await search(second, workspace.apiKey, sourceId, { query: "quinces medlars orchard" })).map((hit) => hit.documentId)).not.toContain(orchard.id);
		const graphDocument = corpus.documentIds[1];
		const graphChunks = new Set(await chunksOf(graphDocument));
		expect((await second.request("DELETE", `/knowledge/sources/${sourceId}/documents/${graphDocument}`, { key: workspace.apiKey })).status).toBe(200);
		for (const text of queries()) {
			expect((await search(first, workspace.apiKey, sourceId, { query: text })).filter((hit) => graphChunks.has(hit.chunkId))).toEqual([]);
		}
		expect(vectors.statistics.fullLoads).toBe(0);
	}, 120_000);

	it("a fresh cache folds the changes since the file into a new generation on a builder thread, and ranks the same after", async () => {
		const { services } = first;
		const cache = new VectorCache(services.notifications, services.search.builders, new SearchMemoryBudget(512 * 1024 ** 2), "fold-test:", {
			directory: indexDirectory,
			minChunks: 1000,
			foldChunks: 1,
		});
		const em = first.orm.em.fork();
		const opened = await cache.matrixFor(em, source());
		expect(cache.statistics).toMatchObject({ fullLoads: 0, restoredLoads: 1 });
		const generation = opened.approximate?.generation.name;
		expect(opened.pendingFold).toBeGreaterThan(0);
		const rankings = await Promise.all(queries().map(async (text) => (await opened.nearest(embedBuiltin(text), 20)).map((hit) => hit.chunkId)));

		await eventually(async () => cache.indexStatistics.builds >= 1, 60_000, "the fold");
		const folded = await cache.matrixFor(em, source());
		expect(folded.approximate?.generation.name).not.toBe(generation);
		expect(folded.pendingFold).toBe(0);
		expect(folded.size).toBe(opened.size);
		const exact = await exactMatrix();
		expect(folded.size).toBe(exact.size);
		// Exact before (column runs and the exact tail) and after (the tail folded into a run of its own): the same ranking.
		for (const [position, text] of queries().entries()) {
			expect((await folded.nearest(embedBuiltin(text), 20)).map((hit) => hit.chunkId)).toEqual(rankings[position]);
		}
		const runs = folded.approximate?.generation.columns ?? [];
		expect(runs.length).toBe(2);
		expect(runs[1].from).toBe(runs[0].to);
		expect(cache.statistics.fullLoads).toBe(0);
		// The old generation's files stay a while for processes still opening them.
		expect(existsSync(join(indexDirectory, "vectors", sourceId, `${generation}.meta`))).toBe(true);
	}, 120_000);

	it("a builtin source whose generation predates column runs (a graph, no runs) is searched through its graph, and its next fold writes runs over every key and no graph", async () => {
		const { services } = first;
		const directory = join(indexDirectory, "vectors", sourceId);
		// A generation as written before column runs: a graph, and a .meta without `columns` or `graph`.
		const built = await services.search.builders.run(workspace.workspaceId, { kind: "vector-index", sourceId, directory: indexDirectory, graph: true });
		expect(built?.graph).toBe(true);
		const metaPath = join(directory, `${built?.name}.meta`);
		const bytes = await readFile(metaPath);
		const headerLength = bytes.readUInt32LE(0);
		const { columns, graph, ...olderHeader } = JSON.parse(bytes.subarray(4, 4 + headerLength).toString("utf8"));
		expect(columns.length).toBeGreaterThan(0);
		expect(graph).toBe(true);
		const olderHeaderBytes = Buffer.from(JSON.stringify(olderHeader));
		const prefix = Buffer.alloc(4);
		prefix.writeUInt32LE(olderHeaderBytes.length);
		await writeFile(metaPath, Buffer.concat([prefix, olderHeaderBytes, bytes.subarray(4 + headerLength)]));
		for (const file of await readdir(directory)) if (file.endsWith(".i8")) await rm(join(directory, file));

		const cache = new VectorCache(services.notifications, services.search.builders, new SearchMemoryBudget(512 * 1024 ** 2), "upgrade-test:", { directory: indexDirectory, minChunks: 1000, foldChunks: 1 });
		const em = first.orm.em.fork();
		const opened = await cache.matrixFor(em, source());
		expect(opened.approximate?.hasGraph).toBe(true);
		expect(opened.approximate?.generation.columns).toEqual([]);
		const { graphs } = services.search.builders;
		const columnScans = graphs.columnScans;
		const exact = await exactMatrix();
		const query = embedBuiltin(queries()[0]);
		const truth = new Map(exact.nearest(query, exact.size).map((hit) => [hit.chunkId, hit.similarity]));
		const throughGraph = await opened.nearest(query, 20);
		expect(throughGraph).toHaveLength(20);
		for (const hit of throughGraph) expect(hit.similarity).toBeCloseTo(truth.get(hit.chunkId) ?? Number.NaN, 5);
		expect(graphs.columnScans).toBe(columnScans);

		// A change makes a fold due: the new generation has runs over all its keys and no graph, and ranks exactly.
		const quarry = await uploadDocument(first, workspace.apiKey, sourceId, "quarry.txt", "The quarry ships granite blocks by barge every spring.");
		await waitForDocument(first, workspace.apiKey, sourceId, quarry.id, ["READY"]);
		await cache.matrixFor(first.orm.em.fork(), source());
		await eventually(async () => cache.indexStatistics.builds >= 1, 60_000, "the fold");
		const folded = await cache.matrixFor(first.orm.em.fork(), source());
		expect(folded.approximate?.hasGraph).toBe(false);
		const runs = folded.approximate?.generation.columns ?? [];
		expect(runs[0]?.from).toBe(0);
		expect(runs[runs.length - 1]?.to).toBe(folded.approximate?.generation.count);
		const exactAfter = await exactMatrix();
		const best = exactAfter.nearest(query, 20);
		expect((await folded.nearest(query, 20)).map((hit) => hit.chunkId)).toEqual(best.map((hit) => hit.chunkId));
		expect(graphs.columnScans).toBe(columnScans + 1);
	}, 120_000);

	it("deleting the source removes its index files", async () => {
		expect(existsSync(join(indexDirectory, "vectors", sourceId))).toBe(true);
		expect((await first.request("DELETE", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey })).status).toBe(200);
		expect(existsSync(join(indexDirectory, "vectors", sourceId))).toBe(false);
	});
});
