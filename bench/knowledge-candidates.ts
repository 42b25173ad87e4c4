/**
 * npm run bench:knowledge-candidates — the index designs search could scale on, measured on one
 * synthetic source before choosing (docs/knowledge.md, "Search at scale").
 *
 * One source of N chunks (default 100,000; `--chunks N`) written straight into PostgreSQL by the
 * tests' generator (Zipf vocabulary, builtin vectors), then, over the same 200 seeded queries:
 *   lexical: the in-process BM25 index (today's search: every posting of every query term scored,
 *     RM3 expansion) vs PostgreSQL full text through the GIN index (bounded candidates, ts_rank_cd)
 *     vs the RUM access method (ordered by `<=>`, when the `rum` extension is installed);
 *   vectors: the exact scan (today's search) vs HNSW through usearch and hnswlib-node (when
 *     ANN_MODULES names a node_modules folder holding them: they are not dependencies of the
 *     project), with build time, memory and recall@50 against the exact scan.
 * Build or load time, query p50/p99 and memory per design. Results: bench/results/knowledge-candidates.json.
 */
import { rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import pg from "pg";
import { openDatabase } from "../server/db/orm";
import { embedBuiltin } from "../server/knowledge/embed/builtin-embedder";
import { type LexicalChunkRow, lexicalChunkRowsSql, parseTsvector, SourceLexicon } from "../server/knowledge/index/lexical-index";
import { SourceMatrix, type VectorChunkRow, vectorChunkRowsSql } from "../server/knowledge/index/vector-cache";
import { decodeVector } from "../server/knowledge/index/vector-encoding";
import { rankLexically } from "../server/knowledge/search/rank-lexically";
import { newId } from "../server/shared/ids";
import { createTestDatabase } from "../test/helpers/database";
import { insertSyntheticCorpus } from "../test/knowledge/synthetic-corpus";
import { describeRun } from "./run-record";

const argument = (name: string) => {
	const index = process.argv.indexOf(name);
	return index >= 0 ? process.argv[index + 1] : undefined;
};
const CHUNKS = Number(argument("--chunks") ?? 100_000);
const QUERIES = 200;
const TOP = 50;
/** `--parts lexical,vectors` (default both): the vector part always measures the exact scan, the recall reference. */
const PARTS = new Set((argument("--parts") ?? "lexical,vectors").split(","));
const log = (message: string) => process.stdout.write(`${message}\n`);

if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
await (await openDatabase(database.url)).close();
const client = new pg.Client({ connectionString: database.url });
await client.connect();

const percentile = (values: number[], p: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value: number) => Number(value.toFixed(2));
const time = async <T>(work: () => Promise<T> | T): Promise<[T, number]> => {
	const start = performance.now();
	const value = await work();
	return [value, performance.now() - start];
};
const latencies = async (work: (query: number) => Promise<unknown> | unknown) => {
	const taken: number[] = [];
	for (let query = 0; query < QUERIES; query++) taken.push((await time(() => work(query)))[1]);
	return { p50: ms(percentile(taken, 50)), p99: ms(percentile(taken, 99)) };
};
const heapMiB = () => {
	global.gc?.();
	return process.memoryUsage().heapUsed / 2 ** 20 + process.memoryUsage().arrayBuffers / 2 ** 20;
};

interface Row {
	design: string;
	part: "lexical" | "vectors";
	buildSeconds: number | null;
	p50Ms: number;
	p99Ms: number;
	memoryMiB: number | null;
	recallAt50?: number;
	notes: string;
}
// Recorded before the run: the commit and load average it started with.
const run = describeRun({ chunks: CHUNKS, queries: QUERIES, top: TOP, parts: [...PARTS] });
const rows: Row[] = [];
const formatRow = (row: Row) =>
	`| ${row.design} | ${row.part} | ${row.buildSeconds === null ? "–" : row.buildSeconds.toFixed(1)} | ${row.p50Ms} | ${row.p99Ms} | ${row.memoryMiB === null ? "–" : row.memoryMiB.toFixed(0)} | ${row.recallAt50 ?? "–"} | ${row.notes} |`;
/** Printed as soon as measured: a long run stopped midway still reports what it measured. */
const record = (row: Row) => {
	rows.push(row);
	log(formatRow(row));
};

try {
	const workspaceId = newId("ws");
	const organizationId = newId("org");
	const sourceId = newId("src");
	await client.query("insert into organizations (id, name, created_at, updated_at) values ($1, 'Bench', now(), now())", [organizationId]);
	await client.query("insert into workspaces (id, organization_id, name, created_at, updated_at) values ($1, $2, 'Bench', now(), now())", [workspaceId, organizationId]);
	await client.query(
		`insert into knowledge_sources (id, workspace_id, name, description, embedding_provider, embedding_model, vector_store, created_at, updated_at)
		 values ($1, $2, 'Scale', '', 'builtin', 'builtin', 'postgres', now(), now())`,
		[sourceId, workspaceId],
	);
	const [corpus, insertMs] = await time(() => insertSyntheticCorpus(database.url, { workspaceId, sourceId }, { chunks: CHUNKS, chunksPerDocument: 1000, sentencesPerChunk: 5 }));
	log(`${CHUNKS} chunks written in ${(insertMs / 1000).toFixed(1)} s (${(corpus.characters / 2 ** 20).toFixed(0)} MiB of text)`);

	// Seeded queries of two to four Zipf-ranked words, rare and common mixed, as a person types them.
	let seed = 7;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2 ** 31;
		return seed / 2 ** 31;
	};
	const texts = Array.from({ length: QUERIES }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => corpus.word(Math.floor(3000 * random() ** 2))).join(" "));
	const lexemes = await Promise.all(
		texts.map(async (text) => {
			const { rows: [row] } = await client.query<{ lexemes: string }>("select to_tsvector('english', $1)::text as lexemes", [text]);
			const terms = new Map<string, number>();
			parseTsvector(row.lexemes, (lexeme, frequency) => terms.set(lexeme, frequency));
			return terms;
		}),
	);

	// Lexical 1: today's in-process BM25 index with RM3.
	if (PARTS.has("lexical")) {
		const before = heapMiB();
		const [lexicon, buildMs] = await time(async () => SourceLexicon.fromRows((await client.query<LexicalChunkRow>(lexicalChunkRowsSql("all"), [sourceId])).rows));
		const memory = heapMiB() - before;
		const expanded = await latencies((query) => rankLexically(lexicon, lexemes[query], TOP));
		const plain = await latencies((query) => rankLexically(lexicon, lexemes[query], TOP, false));
		record({ design: "in-process BM25 + RM3 (today)", part: "lexical", buildSeconds: buildMs / 1000, ...toRow(expanded), memoryMiB: memory, notes: "every process holds every searched source; build reads every row" });
		record({ design: "in-process BM25, no expansion", part: "lexical", buildSeconds: buildMs / 1000, ...toRow(plain), memoryMiB: memory, notes: "all postings of each term scored" });
	}

	// Lexical 2: PostgreSQL full text through a GIN index (built here: the product keeps none), bounded candidates.
	if (PARTS.has("lexical")) {
		await client.query(`create index if not exists "knowledge_chunks_search_vector_index" on "knowledge_chunks" using gin ("search_vector")`);
		const sql = `with q as materialized (select replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery as loose),
		   candidates as (select c.id, c.search_vector from knowledge_chunks c, q where c.source_id = $2 and c.search_vector @@ q.loose limit 1000)
		 select x.id from candidates x, q order by ts_rank_cd(x.search_vector, q.loose) desc limit ${TOP}`;
		const measured = await latencies((query) => client.query(sql, [texts[query], sourceId]));
		const { rows: [size] } = await client.query<{ bytes: string }>("select pg_relation_size('knowledge_chunks_search_vector_index') as bytes");
		record({ design: "PostgreSQL GIN, OR query, 1,000 candidates, ts_rank_cd", part: "lexical", buildSeconds: null, ...toRow(measured), memoryMiB: 0, notes: `shared, nothing in process; index ${(Number(size.bytes) / 2 ** 20).toFixed(0)} MiB on disk; candidates are the first 1,000 matches, not the best` });
	}

	// Lexical 3: RUM (ordered index scan by rank), when installed.
	if (PARTS.has("lexical")) {
		const installed = await client.query("create extension if not exists rum").then(
			() => true,
			(error: Error) => (log(`rum: ${error.message}`), false),
		);
		if (installed) {
			const [, buildMs] = await time(() => client.query("create index knowledge_chunks_search_vector_rum on knowledge_chunks using rum (search_vector rum_tsvector_ops)"));
			const sql = `select c.id from knowledge_chunks c, (select replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery as q) q
			 where c.source_id = $2 and c.search_vector @@ q.q order by c.search_vector <=> q.q limit ${TOP}`;
			const measured = await latencies((query) => client.query(sql, [texts[query], sourceId]));
			const { rows: [size] } = await client.query<{ bytes: string }>("select pg_relation_size('knowledge_chunks_search_vector_rum') as bytes");
			record({ design: "PostgreSQL RUM, OR query, ordered by <=>", part: "lexical", buildSeconds: buildMs / 1000, ...toRow(measured), memoryMiB: 0, notes: `shared; index ${(Number(size.bytes) / 2 ** 20).toFixed(0)} MiB; Debian package, not in embedded PostgreSQL` });
		}
	}

	// Vectors 1: today's exact scan.
	const queryVectors = texts.map((text) => embedBuiltin(text));
	const vectorRows = (await client.query<VectorChunkRow>(vectorChunkRowsSql("all"), [sourceId])).rows;
	const before = heapMiB();
	const [matrix, matrixMs] = await time(() => SourceMatrix.fromRows(vectorRows));
	const matrixMemory = heapMiB() - before;
	const exact = queryVectors.map((vector) => matrix.nearest(vector, TOP).map((hit) => hit.chunkId));
	record({
		design: "exact scan, sparse-aware (today)",
		part: "vectors",
		buildSeconds: matrixMs / 1000,
		...toRow(await latencies((query) => matrix.nearest(queryVectors[query], TOP))),
		memoryMiB: matrixMemory,
		recallAt50: 1,
		notes: "every process holds every searched source",
	});
	const dimensions = matrix.dimensions;
	const ids = vectorRows.map((row) => row.id);
	const vectors = vectorRows.map((row) => decodeVector(row.embedding, dimensions));
	const recall = (found: string[][]) => Number((found.reduce((sum, hits, query) => sum + hits.filter((id) => exact[query].includes(id)).length / Math.max(1, exact[query].length), 0) / QUERIES).toFixed(3));

	// Vectors 2 and 3: HNSW libraries, if ANN_MODULES points at them.
	const annModules = process.env.ANN_MODULES;
	if (annModules) {
		const require = createRequire(join(annModules, "package.json"));
		try {
			const usearch = require("usearch") as { Index: new (options: Record<string, unknown>) => UsearchIndex };
			for (const quantization of ["f32", "i8"]) {
				const index = new usearch.Index({ metric: "ip", connectivity: 16, dimensions, quantization, expansion_add: 128, expansion_search: 64 });
				const keys = BigUint64Array.from(ids.map((_, slot) => BigInt(slot)));
				const flat = new Float32Array(ids.length * dimensions);
				vectors.forEach((vector, slot) => flat.set(vector, slot * dimensions));
				const [, buildMs] = await time(() => index.add(keys, flat, 2));
				const path = join(process.env.TMPDIR ?? "/tmp", `bench-usearch-${quantization}-${process.pid}.bin`);
				index.save(path);
				const viewed = new usearch.Index({ metric: "ip", connectivity: 16, dimensions, quantization });
				const [, viewMs] = await time(() => viewed.view(path));
				const search = (query: number) => Array.from(viewed.search(queryVectors[query], TOP, 1).keys, (key) => ids[Number(key)]);
				const found = queryVectors.map((_, query) => search(query));
				record({
					design: `usearch HNSW (M=16, ef=64, ${quantization}), memory-mapped file`,
					part: "vectors",
					buildSeconds: buildMs / 1000,
					...toRow(await latencies(search)),
					memoryMiB: null,
					recallAt50: recall(found),
					notes: `file ${((await stat(path)).size / 2 ** 20).toFixed(0)} MiB, opened (view) in ${viewMs.toFixed(1)} ms, paged in by the OS`,
				});
				await rm(path, { force: true });
			}
		} catch (error) {
			log(`usearch: ${(error as Error).message}`);
		}
		// hnswlib-node builds on one thread through number[] copies: minutes at 100k; asked for with --parts …,hnswlib.
		if (PARTS.has("hnswlib")) {
			try {
				const { HierarchicalNSW } = require("hnswlib-node") as { HierarchicalNSW: new (space: string, dimensions: number) => HnswIndex };
				const index = new HierarchicalNSW("ip", dimensions);
				const beforeHnsw = heapMiB();
				const [, buildMs] = await time(() => {
					index.initIndex(ids.length, 16, 128);
					vectors.forEach((vector, slot) => index.addPoint(Array.from(vector), slot));
				});
				index.setEf(64);
				const search = (query: number) => index.searchKnn(Array.from(queryVectors[query]), TOP).neighbors.map((slot) => ids[slot]);
				const found = queryVectors.map((_, query) => search(query));
				record({
					design: "hnswlib-node HNSW (M=16, ef=64)",
					part: "vectors",
					buildSeconds: buildMs / 1000,
					...toRow(await latencies(search)),
					memoryMiB: heapMiB() - beforeHnsw,
					recallAt50: recall(found),
					notes: "whole index in process memory (native heap, not counted by the heap figure); save/load reads it all",
				});
			} catch (error) {
				log(`hnswlib-node: ${(error as Error).message}`);
			}
		}
	}

	log("");
	log(`| design (${CHUNKS.toLocaleString("en")} chunks, ${QUERIES} queries, top ${TOP}) | part | build s | p50 ms | p99 ms | memory MiB | recall@50 | notes |`);
	log("|---|---|---|---|---|---|---|---|");
	for (const row of rows) log(formatRow(row));
	await writeFile(new URL(`./results/knowledge-candidates-${[...PARTS].join("-")}.json`, import.meta.url), `${JSON.stringify({ ...run, rows }, null, 2)}\n`);
} finally {
	await client.end();
	await database.drop();
}

function toRow(measured: { p50: number; p99: number }) {
	return { p50Ms: measured.p50, p99Ms: measured.p99 };
}

interface UsearchIndex {
	add(keys: BigUint64Array, vectors: Float32Array, threads: number): void;
	save(path: string): void;
	view(path: string): void;
	search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array };
}
interface HnswIndex {
	initIndex(maxElements: number, m: number, efConstruction: number): void;
	addPoint(vector: number[], label: number): void;
	setEf(ef: number): void;
	searchKnn(vector: number[], k: number): { neighbors: number[] };
}
