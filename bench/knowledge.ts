/**
 * npm run bench:knowledge — knowledge ingestion and retrieval, builtin embedder, no network.
 *
 * 1. Ingestion: per file type, upload through the HTTP API and time upload -> READY
 *    (MB/s, chunks/s), including the 1 MB text target (< 2 s).
 * 2. Search latency: p50/p99 of searchKnowledge() (hybrid: in-memory BM25 + vectors, fused) and
 *    of the plain PostgreSQL full-text baseline over 10k and 100k synthetic chunks, interleaved
 *    query by query so machine noise hits both alike (caches warm; their cold builds and the
 *    lexical index's memory are reported separately).
 *    Then the first search after one new document (5 chunks) joins the source: the caches load
 *    that document only (incremental), against the cold build of the whole source.
 * 3. Retrieval quality on Cranfield (bench/data/cranfield): nDCG@10 and recall@10 of the default
 *    search vs its parts (BM25 alone, BM25 with RM3 expansion, builtin vectors alone), the former
 *    default (reciprocal rank fusion) and plain PostgreSQL full text (OR and AND forms), same run,
 *    same chunks, on a fixed split of the queries: the tuning half (query id = 1 mod 4) chose the
 *    ranking's settings, the held-out half (id = 3 mod 4) checks them. The fusion weight's grid
 *    on the tuning half is recomputed here, so the choice can be re-made from this run's output.
 *    Summary tables are printed at the end.
 *
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database is created and dropped). Results: bench/results/knowledge.json.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { embedBuiltin } from "../server/knowledge/embed/builtin-embedder";
import { encodeVector } from "../server/knowledge/index/vector-encoding";
import { queryLexemes } from "../server/knowledge/index/lexical-index";
import { fuseRankings, LEXICAL_WEIGHT } from "../server/knowledge/search/fuse-rankings";
import { rankLexically } from "../server/knowledge/search/rank-lexically";
import { fullTextRanking } from "../server/knowledge/search/search-knowledge";
import { createKnowledgeSource } from "../server/modules/knowledge/create-knowledge-source";
import { searchKnowledgeSource } from "../server/modules/knowledge/search-knowledge-source";
import { createApiKey } from "../server/modules/api-keys/create-api-key";
import { createUseCaseContext } from "../server/modules/platform-services";
import { OPERATOR } from "../server/shared/principal";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { startPlatform } from "../server/platform";
import { newId } from "../server/shared/ids";
import { createLogger } from "../server/shared/logger";
import { createTestDatabase } from "../test/helpers/database";
import { describeRun } from "./run-record";

if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
const dataDirectory = await mkdtemp(join(tmpdir(), "bench-knowledge-"));
const platform = await startPlatform({
	databaseUrl: database.url,
	secretKey: "bench-secret-key-0123456789abcdef0123456789",
	port: 0,
	host: "127.0.0.1",
	logger: createLogger("error"),
	dataDirectory,
	// 1,400 uploads and their polling in well under a minute: the bench measures ingestion, not the rate limiter.
	quotas: { rateLimitPerMinute: 0 },
});
const pool = new pg.Pool({ connectionString: database.url, max: 4 });
/**
 * The full-text baselines read candidates through a GIN index, as a deployment ranking in
 * PostgreSQL would. The product keeps none (search ranks its own per-source index), so the
 * benchmark builds it just before the baselines run and drops it after them: the inserts and
 * ingestions it times stay the product's.
 */
const withFullTextIndex = () => pool.query(`create index if not exists "knowledge_chunks_search_vector_index" on "knowledge_chunks" using gin ("search_vector")`);
const withoutFullTextIndex = () => pool.query(`drop index if exists "knowledge_chunks_search_vector_index"`);
const operator = () => createUseCaseContext(platform.services, OPERATOR);
const { lexical: lexicalIndexCache, vectors: vectorCache } = platform.services.search;
// BENCH_SECTIONS=quality (or ingestion, latency; comma-separated) runs part of the benchmark and
// replaces only that part of the results file.
const sections = new Set((process.env.BENCH_SECTIONS ?? "ingestion,latency,queue,quality").split(","));
const resultsFile = new URL("./results/knowledge.json", import.meta.url);
const previous = sections.size < 4 ? JSON.parse(await readFile(resultsFile, "utf8").catch(() => "{}")) : {};
// A partial run keeps the earlier sections' figures and their own run records (under `runs`).
const run = describeRun({ rateLimitPerMinute: 0, embedder: "builtin", sections: [...sections], logLevel: "error" });
const results: Record<string, unknown> = { ...previous, ...run, runs: { ...(previous.runs ?? {}), ...Object.fromEntries([...sections].map((section) => [section, run])) } };
const log = (message: string) => process.stdout.write(`${message}\n`);

try {
	const setup = await bootstrapInstallation(operator(), { organization: "Bench", workspace: "Bench", email: "bench@example.com", password: "bench password 123" });
	const { key } = await createApiKey(operator(), { workspaceId: setup.workspaceId, name: "bench", scopes: ["knowledge:read", "knowledge:write"] });
	const api = async (method: string, path: string, body?: unknown) => {
		const response = await fetch(`${platform.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
		if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
		// The bench reads a few known fields of the API's JSON answers.
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		return response.json() as Promise<any>;
	};
	const waitReady = async (sourceId: string, documentId: string) => {
		for (;;) {
			const document = await api("GET", `/knowledge/sources/${sourceId}/documents/${documentId}`);
			if (document.status === "READY") return document;
			if (document.status === "FAILED") throw new Error(`${documentId} failed: ${document.failureReason}`);
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	};

	// 1. Ingestion per type.
	const words = Array.from({ length: 3000 }, (_, index) => `w${index.toString(36)}x${(index * 7919) % 997}`);
	let seed = 42;
	const random = () => {
		seed = (seed * 1103515245 + 12345) % 2 ** 31;
		return seed / 2 ** 31;
	};
	const zipfWord = () => words[Math.floor(words.length * random() ** 3)];
	const sentence = () => `${Array.from({ length: 8 + Math.floor(random() * 12) }, zipfWord).join(" ")}.`;
	const paragraph = () => Array.from({ length: 4 }, sentence).join(" ");
	const oneMegabyte = (render: (index: number) => string, header = "", footer = "") => {
		let text = header;
		for (let index = 0; text.length < 1024 * 1024 - footer.length - 2000; index++) text += render(index);
		return text + footer;
	};
	const fixture = (name: string) => readFile(new URL(`../test/fixtures/knowledge/${name}`, import.meta.url));
	const inputs: { type: string; files: { name: string; bytes: Buffer }[] }[] = [
		{ type: "txt", files: [{ name: "big.txt", bytes: Buffer.from(oneMegabyte(() => `${paragraph()}\n\n`)) }] },
		{ type: "md", files: [{ name: "big.md", bytes: Buffer.from(oneMegabyte((index) => `${index % 5 === 0 ? `## Section ${index}\n\n` : ""}${paragraph()}\n\n`)) }] },
		{ type: "html", files: [{ name: "big.html", bytes: Buffer.from(oneMegabyte((index) => `${index % 5 === 0 ? `<h2>Section ${index}</h2>` : ""}<p>${paragraph()}</p>\n`, "<html><body>", "</body></html>")) }] },
		{ type: "csv", files: [{ name: "big.csv", bytes: Buffer.from(oneMegabyte((index) => `${index},${zipfWord()},"${sentence()}",${Math.floor(random() * 1000)}\n`, "id,name,description,amount\n")) }] },
		{ type: "json", files: [{ name: "big.json", bytes: Buffer.from(JSON.stringify({ items: Array.from({ length: 5200 }, (_, index) => ({ id: index, name: zipfWord(), note: sentence() })) })) }] },
		{ type: "pdf", files: Array.from({ length: 10 }, (_, index) => ({ name: `lighthouse-${index}.pdf`, bytes: Buffer.alloc(0) })) },
		{ type: "docx", files: Array.from({ length: 10 }, (_, index) => ({ name: `orchards-${index}.docx`, bytes: Buffer.alloc(0) })) },
	];
	const pdf = await fixture("lighthouse.pdf");
	const docx = await fixture("orchards.docx");
	for (const file of inputs[5].files) file.bytes = pdf;
	for (const file of inputs[6].files) file.bytes = docx;
	if (sections.has("ingestion")) {
		const ingestion: Record<string, unknown> = {};
		const ingestSource = (await api("POST", "/knowledge/sources", { name: "ingestion" })).id as string;
		for (const input of inputs) {
			let bytes = 0;
			let chunks = 0;
			const started = performance.now();
			for (const file of input.files) {
				const created = await api("POST", `/knowledge/sources/${ingestSource}/documents/upload`, { filename: file.name, contentBase64: file.bytes.toString("base64") });
				chunks += (await waitReady(ingestSource, created.id)).chunkCount;
				bytes += file.bytes.length;
			}
			const seconds = (performance.now() - started) / 1000;
			ingestion[input.type] = {
				files: input.files.length,
				bytes,
				chunks,
				secondsToReady: Number(seconds.toFixed(3)),
				megabytesPerSecond: Number((bytes / 1024 / 1024 / seconds).toFixed(2)),
				chunksPerSecond: Math.round(chunks / seconds),
			};
			log(`ingestion ${input.type}: ${JSON.stringify(ingestion[input.type])}`);
		}
		results.ingestion = ingestion;
	}

	// 2. Search latency at 10k and 100k chunks (inserted directly: the point is search, not ingestion).
	const latency: Record<string, unknown> = {};
	if (sections.has("latency")) {
		for (const size of [10_000, 100_000]) {
			const source = await createKnowledgeSource(operator(), { workspaceId: setup.workspaceId, name: `latency-${size}` });
			const documentId = newId("doc");
			await pool.query(
				`insert into knowledge_documents (id, workspace_id, source_id, filename, content_type, byte_size, storage_key, status, chunk_count, attempts, created_at, updated_at)
				 values ($1, $2, $3, 'synthetic.txt', 'text/plain', 0, 'none', 'READY', $4, 1, now(), now())`,
				[documentId, setup.workspaceId, source.id, size],
			);
			const insertStarted = performance.now();
			for (let start = 0; start < size; start += 1000) {
				const values: unknown[] = [];
				const tuples: string[] = [];
				for (let ordinal = start; ordinal < Math.min(size, start + 1000); ordinal++) {
					const text = `${sentence()} ${sentence()} ${sentence()} ${sentence()}`;
					const base = values.length;
					tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, 60, '{}'::jsonb, $${base + 7}, now())`);
					values.push(newId("chk"), setup.workspaceId, source.id, documentId, ordinal, text, encodeVector(embedBuiltin(text)));
				}
				await pool.query(`insert into knowledge_chunks (id, workspace_id, source_id, document_id, ordinal, text, token_count, location, embedding, created_at) values ${tuples.join(",")}`, values);
			}
			await withFullTextIndex();
			await pool.query("analyze knowledge_chunks");
			const coldStarted = performance.now();
			await vectorCache.matrixFor(platform.services.orm.em.fork(), { id: source.id, workspace: setup.workspaceId });
			const coldLoadMs = performance.now() - coldStarted;
			const lexicalStarted = performance.now();
			await lexicalIndexCache.lexiconFor(platform.services.orm.em.fork(), { id: source.id, workspace: setup.workspaceId });
			const lexicalBuildMs = performance.now() - lexicalStarted;
			const lexicalMegabytes = (await lexicalIndexCache.memoryBytes(platform.services.orm.em.fork(), { id: source.id, workspace: setup.workspaceId })) / 1024 / 1024;
			// Two query mixes: words drawn like the text (frequent words, the worst case for full text)
			// and words drawn uniformly from the vocabulary (closer to content-word queries).
			const uniformWord = () => words[Math.floor(random() * words.length)];
			const search = (query: string) => searchKnowledgeSource(operator(), { workspaceId: setup.workspaceId, sourceId: source.id, query, topK: 5 });
			// The baseline ranks as many candidates as hybrid search asks of each half (50 for topK 5).
			const baseline = (query: string) => fullTextRanking(platform.services.orm.em.fork(), source.id, query, 50);
			const measure = async (pick: () => string) => {
				const queries = Array.from({ length: 200 }, () => Array.from({ length: 4 }, pick).join(" "));
				for (const query of queries.slice(0, 10)) await Promise.all([search(query), baseline(query)]);
				const timings = { hybrid: [] as number[], fullTextBaseline: [] as number[] };
				for (const query of queries) {
					for (const [name, run] of [["hybrid", search], ["fullTextBaseline", baseline]] as const) {
						const started = performance.now();
						await run(query);
						timings[name].push(performance.now() - started);
					}
				}
				const summary = (values: number[]) => {
					values.sort((left, right) => left - right);
					const percentile = (p: number) => Number(values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))].toFixed(2));
					return { queries: values.length, p50Ms: percentile(50), p99Ms: percentile(99) };
				};
				return { hybrid: summary(timings.hybrid), fullTextBaseline: summary(timings.fullTextBaseline) };
			};
			const frequentWordQueries = await measure(zipfWord);
			const uniformWordQueries = await measure(uniformWord);
			// The in-memory cost of the expansion alone: BM25 vs BM25 with RM3, interleaved, same lexemes.
			const lexicon = await lexicalIndexCache.lexiconFor(platform.services.orm.em.fork(), { id: source.id, workspace: setup.workspaceId });
			const lexemeSets = await Promise.all(Array.from({ length: 200 }, (_, index) => queryLexemes(platform.services.orm.em.fork(), Array.from({ length: 4 }, index % 2 ? zipfWord : uniformWord).join(" "))));
			const lexicalTimings = { bm25: [] as number[], bm25WithExpansion: [] as number[] };
			for (const terms of lexemeSets) {
				let started = performance.now();
				lexicon.rank(terms, 50);
				lexicalTimings.bm25.push(performance.now() - started);
				started = performance.now();
				rankLexically(lexicon, terms, 50);
				lexicalTimings.bm25WithExpansion.push(performance.now() - started);
			}
			const percentiles = (values: number[]) => {
				values.sort((left, right) => left - right);
				return { p50Ms: Number(values[Math.floor(values.length / 2)].toFixed(2)), p99Ms: Number(values[Math.floor(values.length * 0.99)].toFixed(2)) };
			};
			const lexicalRankingInMemory = { bm25: percentiles(lexicalTimings.bm25), bm25WithExpansion: percentiles(lexicalTimings.bm25WithExpansion) };
			// One more document of 5 chunks, announced as ingestion announces it (the LISTEN handler
			// marks the source stale): the first search then loads that document only.
			const addedDocument = newId("doc");
			await pool.query(
				`insert into knowledge_documents (id, workspace_id, source_id, filename, content_type, byte_size, storage_key, status, chunk_count, attempts, processed_at, created_at, updated_at)
				 values ($1, $2, $3, 'added.txt', 'text/plain', 0, 'none', 'READY', 5, 1, now(), now(), now())`,
				[addedDocument, setup.workspaceId, source.id],
			);
			for (let ordinal = 0; ordinal < 5; ordinal++) {
				const text = `${sentence()} ${sentence()} zyzzyvaquokka`;
				await pool.query(
					`insert into knowledge_chunks (id, workspace_id, source_id, document_id, ordinal, text, token_count, location, embedding, created_at) values ($1, $2, $3, $4, $5, $6, 60, '{}'::jsonb, $7, now())`,
					[newId("chk"), setup.workspaceId, source.id, addedDocument, ordinal, text, encodeVector(embedBuiltin(text))],
				);
			}
			vectorCache.invalidate(source.id);
			lexicalIndexCache.invalidate(source.id);
			const incrementalStarted = performance.now();
			const found = await search("zyzzyvaquokka");
			const firstSearchAfterNewDocumentMs = performance.now() - incrementalStarted;
			if (found[0]?.documentId !== addedDocument) throw new Error("the new document was not found by the first search after it");
			latency[String(size)] = {
				chunks: size,
				frequentWordQueries,
				uniformWordQueries,
				lexicalRankingInMemory,
				firstSearchAfterNewDocumentMs: Number(firstSearchAfterNewDocumentMs.toFixed(1)),
				matrixColdLoadMs: Math.round(coldLoadMs),
				lexicalIndexBuildMs: Math.round(lexicalBuildMs),
				// Typed arrays plus an estimate of the chunk-id and vocabulary strings (process heap deltas
				// are swamped by the garbage collector running during the build).
				lexicalIndexMegabytes: Number(lexicalMegabytes.toFixed(1)),
				insertSeconds: Number(((performance.now() - insertStarted) / 1000).toFixed(1)),
			};
			log(`search ${size}: ${JSON.stringify(latency[String(size)])}`);
			vectorCache.drop(source.id);
			lexicalIndexCache.drop(source.id);
			await withoutFullTextIndex();
		}
		results.searchLatency = latency;
	}

	// 3. Ingestion at queue speed: the 1,400 Cranfield documents uploaded through the API at
	// concurrency 8, then the time until all are READY; a single document uploaded to another source
	// once the batch is queued; and the first search after the batch (the source was searched
	// before it, so its caches are warm and take the new documents incrementally).
	const directory = new URL("./data/cranfield/", import.meta.url);
	const corpus = (await readFile(new URL("corpus.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; title: string; text: string });
	const uploadCranfield = (sourceId: string, document: { _id: string; text: string }) =>
		api("POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename: `${document._id}.txt`, contentBase64: Buffer.from(document.text).toString("base64") });
	const settled = async (sourceId: string, count: number) => {
		for (;;) {
			const { rows } = await pool.query("select count(*) filter (where status = 'READY')::int as ready, count(*) filter (where status = 'FAILED')::int as failed from knowledge_documents where source_id = $1", [sourceId]);
			// Two Cranfield documents are empty: they fail ("No text could be extracted"), as they should.
			if (rows[0].ready + rows[0].failed === count) return rows[0] as { ready: number; failed: number };
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	};
	let cranfieldSource: string | undefined;
	let cranfieldIngestSeconds = 0;
	if (sections.has("queue")) {
		const sourceId = (await api("POST", "/knowledge/sources", { name: "cranfield" })).id as string;
		const otherSource = (await api("POST", "/knowledge/sources", { name: "single document" })).id as string;
		const search = (query: string) => searchKnowledgeSource(operator(), { workspaceId: setup.workspaceId, sourceId, query, topK: 10 });
		const started = performance.now();
		await waitReady(sourceId, (await uploadCranfield(sourceId, corpus[0])).id);
		await search("boundary layer");
		const before = { lexical: { ...lexicalIndexCache.statistics }, vectors: { ...vectorCache.statistics } };
		let next = 1;
		await Promise.all(
			Array.from({ length: 8 }, async () => {
				while (next < corpus.length) await uploadCranfield(sourceId, corpus[next++]);
			}),
		);
		const lastUpload = performance.now();
		const uploadSeconds = (lastUpload - started) / 1000;
		const single = await api("POST", `/knowledge/sources/${otherSource}/documents/upload`, { filename: "single.txt", contentBase64: Buffer.from(corpus[1].text).toString("base64") });
		await waitReady(otherSource, single.id);
		const singleDocumentSeconds = (performance.now() - lastUpload) / 1000;
		const { rows: backlog } = await pool.query("select count(*)::int as pending from knowledge_documents where source_id = $1 and status in ('PENDING', 'PROCESSING')", [sourceId]);
		const outcome = await settled(sourceId, corpus.length);
		const readySeconds = (performance.now() - lastUpload) / 1000;
		cranfieldIngestSeconds = (performance.now() - started) / 1000;
		const searchStarted = performance.now();
		await search("boundary layer transition");
		const firstSearchAfterMs = performance.now() - searchStarted;
		const after = { lexical: { ...lexicalIndexCache.statistics }, vectors: { ...vectorCache.statistics } };
		lexicalIndexCache.drop(sourceId);
		vectorCache.drop(sourceId);
		const coldStarted = performance.now();
		await search("boundary layer transition");
		const coldSearchMs = performance.now() - coldStarted;
		results.queue = {
			documents: corpus.length,
			...outcome,
			workerConcurrency: platform.services.settings.knowledge.workerConcurrency,
			uploadConcurrency: 8,
			uploadSeconds: Number(uploadSeconds.toFixed(1)),
			readySecondsAfterLastUpload: Number(readySeconds.toFixed(1)),
			documentsPerSecondOverall: Number((corpus.length / cranfieldIngestSeconds).toFixed(1)),
			singleDocumentInAnotherSource: { secondsToReady: Number(singleDocumentSeconds.toFixed(2)), batchDocumentsStillQueuedWhenReady: backlog[0].pending },
			firstSearchAfterIngestion: {
				ms: Number(firstSearchAfterMs.toFixed(1)),
				fullLoads: after.lexical.fullLoads - before.lexical.fullLoads + after.vectors.fullLoads - before.vectors.fullLoads,
				documentsLoadedIncrementally: after.lexical.documentsLoaded - before.lexical.documentsLoaded,
			},
			coldSearchMs: Number(coldSearchMs.toFixed(1)),
		};
		log(`queue: ${JSON.stringify(results.queue)}`);
		cranfieldSource = sourceId;
	}

	// 4. Cranfield retrieval quality (over the source section 3 ingested, when it ran).
	const qualityTable: string[] = [];
	if (sections.has("quality")) {
		const queries = (await readFile(new URL("queries.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; text: string });
		const qrels = new Map<string, Map<string, number>>();
		for (const line of (await readFile(new URL("qrels.tsv", directory), "utf8")).trim().split("\n").slice(1)) {
			const [queryId, documentId, score] = line.split("\t");
			if (!qrels.has(queryId)) qrels.set(queryId, new Map());
			qrels.get(queryId)?.set(documentId, Number(score));
		}
		let cranSource = cranfieldSource;
		if (!cranSource) {
			cranSource = (await api("POST", "/knowledge/sources", { name: "cranfield" })).id as string;
			const cranStarted = performance.now();
			for (let index = 0; index < corpus.length; index += 16) await Promise.all(corpus.slice(index, index + 16).map((document) => uploadCranfield(cranSource as string, document)));
			await settled(cranSource, corpus.length);
			cranfieldIngestSeconds = (performance.now() - cranStarted) / 1000;
		}
		await withFullTextIndex();
		const filenameOf = new Map<string, string>();
		for (const row of (await pool.query("select c.id, d.filename from knowledge_chunks c join knowledge_documents d on d.id = c.document_id where c.source_id = $1", [cranSource])).rows) {
			filenameOf.set(row.id, row.filename.replace(/\.txt$/, ""));
		}
		const firstDistinct = (ids: string[], limit = 10) => [...new Set(ids)].slice(0, limit);
		const em = () => platform.services.orm.em.fork();
		const lexicon = () => lexicalIndexCache.lexiconFor(em(), { id: cranSource, workspace: setup.workspaceId });
		const namesOf = (hits: { chunkId: string }[]) => hits.map((hit) => filenameOf.get(hit.chunkId) as string);
		// Each method returns 30 chunks (so 10 distinct documents), as the default does for topK 30.
		const candidates = 120;
		const vectorHits = async (query: string, limit: number) =>
			(await vectorCache.nearest(em(), { id: cranSource, workspace: setup.workspaceId }, embedBuiltin(query), limit)).filter((hit) => hit.similarity > 0).map((hit) => ({ chunkId: hit.chunkId, score: hit.similarity }));
		const fusedWith = async (query: string, lexicalWeight: number) => {
			const lexical = rankLexically(await lexicon(), await queryLexemes(em(), query), candidates);
			return namesOf(fuseRankings(lexical, await vectorHits(query, candidates), lexicalWeight).slice(0, 30));
		};
		const methods: Record<string, (query: string) => Promise<string[]>> = {
			default: async (query) => (await searchKnowledgeSource(operator(), { workspaceId: setup.workspaceId, sourceId: cranSource, query, topK: 30 })).map((hit) => hit.filename.replace(/\.txt$/, "")),
			bm25Alone: async (query) => namesOf((await lexicon()).rank(await queryLexemes(em(), query), 30)),
			bm25WithExpansion: async (query) => namesOf(rankLexically(await lexicon(), await queryLexemes(em(), query), 30)),
			builtinVectorsAlone: async (query) => namesOf(await vectorHits(query, 30)),
			formerDefaultRrf: async (query) => {
				// Reciprocal rank fusion, k = 60, equal weights, 50 candidates a list: the default before.
				const fused = new Map<string, number>();
				const add = (hits: { chunkId: string }[]) => hits.forEach((hit, rank) => fused.set(hit.chunkId, (fused.get(hit.chunkId) ?? 0) + 1 / (61 + rank)));
				add((await lexicon()).rank(await queryLexemes(em(), query), 50));
				add(await vectorHits(query, 50));
				return [...fused].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1)).slice(0, 30).map(([chunkId]) => filenameOf.get(chunkId) as string);
			},
			fullTextOr: async (query) => (await fullTextRanking(em(), cranSource, query, 30)).map((id) => filenameOf.get(id) as string),
			fullTextWebsearchAnd: async (query) => {
				const rows = await pool.query(
					`select c.id from knowledge_chunks c where c.source_id = $1 and c.search_vector @@ websearch_to_tsquery('english', $2)
					 order by ts_rank_cd(c.search_vector, websearch_to_tsquery('english', $2)) desc limit 30`,
					[cranSource, query],
				);
				return rows.rows.map((row) => filenameOf.get(row.id) as string);
			},
		};
		const evaluate = (ranking: string[], judgements: Map<string, number>, withSource: boolean) => {
			const relevant = new Map([...judgements].filter(([, score]) => withSource || score < 5));
			if (relevant.size === 0) return null;
			const dcg = ranking.reduce((sum, id, index) => sum + (relevant.get(id) ?? 0) / Math.log2(index + 2), 0);
			const ideal = [...relevant.values()].sort((left, right) => right - left).slice(0, 10).reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
			const found = ranking.filter((id) => relevant.has(id)).length;
			return { ndcg: dcg / ideal, recall: found / relevant.size };
		};
		// The fixed split: queries are the odd-numbered ones; id = 1 mod 4 tunes, id = 3 mod 4 is held out.
		const judged = queries.filter((query) => qrels.has(query._id));
		const halves = { tuning: judged.filter((query) => Number(query._id) % 4 === 1), heldOut: judged.filter((query) => Number(query._id) % 4 === 3), all: judged };
		const measureQuality = async (method: (query: string) => Promise<string[]>, set: typeof judged) => {
			const scores = { with: { ndcg: 0, recall: 0, n: 0 }, without: { ndcg: 0, recall: 0, n: 0 } };
			for (const query of set) {
				const ranking = firstDistinct(await method(query.text));
				for (const [key, withSource] of [["with", true], ["without", false]] as const) {
					const score = evaluate(ranking, qrels.get(query._id) as Map<string, number>, withSource);
					if (!score) continue;
					scores[key].ndcg += score.ndcg;
					scores[key].recall += score.recall;
					scores[key].n += 1;
				}
			}
			return {
				ndcgAt10: Number((scores.with.ndcg / scores.with.n).toFixed(4)),
				recallAt10: Number((scores.with.recall / scores.with.n).toFixed(4)),
				ndcgAt10WithoutGrade5: Number((scores.without.ndcg / scores.without.n).toFixed(4)),
				recallAt10WithoutGrade5: Number((scores.without.recall / scores.without.n).toFixed(4)),
				queries: scores.with.n,
			};
		};
		type Quality = Awaited<ReturnType<typeof measureQuality>>;
		const quality: Record<string, Record<keyof typeof halves, Quality>> = {};
		for (const [name, method] of Object.entries(methods)) {
			quality[name] = { tuning: await measureQuality(method, halves.tuning), heldOut: await measureQuality(method, halves.heldOut), all: await measureQuality(method, halves.all) };
			log(`cranfield ${name}: ${JSON.stringify(quality[name])}`);
		}
		// The fusion weight's grid: chosen on the tuning half only; the held-out column is for the record.
		const weightGrid: { lexicalWeight: number; tuningNdcgAt10: number; heldOutNdcgAt10: number }[] = [];
		for (let step = 10; step <= 20; step++) {
			const lexicalWeight = step / 20;
			const method = (query: string) => fusedWith(query, lexicalWeight);
			weightGrid.push({ lexicalWeight, tuningNdcgAt10: (await measureQuality(method, halves.tuning)).ndcgAt10, heldOutNdcgAt10: (await measureQuality(method, halves.heldOut)).ndcgAt10 });
		}
		const bestOnTuning = weightGrid.reduce((best, entry) => (entry.tuningNdcgAt10 > best.tuningNdcgAt10 ? entry : best));
		log(`fusion weight grid (tuning half): ${JSON.stringify(weightGrid)}; best ${bestOnTuning.lexicalWeight}, code uses ${LEXICAL_WEIGHT}`);
		results.cranfield = {
			documents: corpus.length,
			ingestSeconds: Number(cranfieldIngestSeconds.toFixed(1)),
			gain: "linear (judgement grade)",
			split: { tuning: "query id = 1 mod 4", heldOut: "query id = 3 mod 4", tuningQueries: halves.tuning.length, heldOutQueries: halves.heldOut.length },
			methods: quality,
			fusionWeightGrid: { grid: weightGrid, bestOnTuningHalf: bestOnTuning.lexicalWeight, usedByDefault: LEXICAL_WEIGHT },
		};
		qualityTable.push("\n| Cranfield nDCG@10 / recall@10 | held-out half | tuning half | all | all, without grade 5 |\n|---|---|---|---|---|");
		for (const [name, entry] of Object.entries(quality)) {
			const cell = (value: Quality) => `${value.ndcgAt10} / ${value.recallAt10}`;
			qualityTable.push(`| ${name} | ${cell(entry.heldOut)} | ${cell(entry.tuning)} | ${cell(entry.all)} | ${entry.all.ndcgAt10WithoutGrade5} / ${entry.all.recallAt10WithoutGrade5} |`);
		}
	}
	log("\n| Search latency (ms) | default p50 | default p99 | full-text baseline p50 | baseline p99 |\n|---|---|---|---|---|");
	for (const [size, entry] of Object.entries(latency) as [string, Record<string, { hybrid: { p50Ms: number; p99Ms: number }; fullTextBaseline: { p50Ms: number; p99Ms: number } }>][]) {
		for (const mix of ["frequentWordQueries", "uniformWordQueries"]) {
			const { hybrid, fullTextBaseline } = entry[mix];
			log(`| ${size} chunks, ${mix} | ${hybrid.p50Ms} | ${hybrid.p99Ms} | ${fullTextBaseline.p50Ms} | ${fullTextBaseline.p99Ms} |`);
		}
	}
	log("\n| In memory (ms) | BM25 p50 / p99 | BM25 + RM3 p50 / p99 | cold vector matrix | cold lexical index | first search after a new document |\n|---|---|---|---|---|---|");
	for (const [size, entry] of Object.entries(latency) as [string, Record<string, number> & { lexicalRankingInMemory: Record<string, { p50Ms: number; p99Ms: number }> }][]) {
		const { bm25, bm25WithExpansion } = entry.lexicalRankingInMemory;
		log(`| ${size} chunks | ${bm25.p50Ms} / ${bm25.p99Ms} | ${bm25WithExpansion.p50Ms} / ${bm25WithExpansion.p99Ms} | ${entry.matrixColdLoadMs} | ${entry.lexicalIndexBuildMs} | ${entry.firstSearchAfterNewDocumentMs} |`);
	}
	for (const line of qualityTable) log(line);
	await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
	log("wrote bench/results/knowledge.json");
} finally {
	await pool.end();
	await platform.close();
	await database.drop();
	await rm(dataDirectory, { recursive: true, force: true });
}
