/**
 * npm run bench:knowledge — knowledge ingestion and retrieval, builtin embedder, no network.
 *
 * 1. Ingestion: per file type, upload through the HTTP API and time upload -> READY
 *    (MB/s, chunks/s), including the 1 MB text target (< 2 s).
 * 2. Search latency: p50/p99 of searchKnowledge() (hybrid: in-memory BM25 + vectors, fused) and
 *    of the plain PostgreSQL full-text baseline over 10k and 100k synthetic chunks, interleaved
 *    query by query so machine noise hits both alike (caches warm; their cold builds and the
 *    lexical index's memory are reported separately).
 * 3. Retrieval quality on Cranfield (bench/data/cranfield): nDCG@10 and recall@10 of hybrid
 *    search vs plain PostgreSQL full text (OR and AND forms), vector-only and BM25-only, same run,
 *    same chunks. A summary table is printed at the end.
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
import { KNOWLEDGE_CHUNKS_CHANNEL } from "../server/knowledge/index/vector-notifications";
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
	knowledge: { workerConcurrency: 4 },
});
const pool = new pg.Pool({ connectionString: database.url, max: 4 });
const operator = () => createUseCaseContext(platform.services, OPERATOR);
const { lexical: lexicalIndexCache, vectors: vectorCache } = platform.services.search;
const results: Record<string, unknown> = { node: process.version, date: new Date().toISOString() };
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

	// 2. Search latency at 10k and 100k chunks (inserted directly: the point is search, not ingestion).
	const latency: Record<string, unknown> = {};
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
		await pool.query("analyze knowledge_chunks");
		const coldStarted = performance.now();
		await vectorCache.matrixFor(platform.services.orm.em.fork(), source.id);
		const coldLoadMs = performance.now() - coldStarted;
		const lexicalStarted = performance.now();
		await lexicalIndexCache.lexiconFor(platform.services.orm.em.fork(), source.id);
		const lexicalBuildMs = performance.now() - lexicalStarted;
		const lexicalMegabytes = (await lexicalIndexCache.memoryBytes(platform.services.orm.em.fork(), source.id)) / 1024 / 1024;
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
		latency[String(size)] = {
			chunks: size,
			frequentWordQueries: await measure(zipfWord),
			uniformWordQueries: await measure(uniformWord),
			matrixColdLoadMs: Math.round(coldLoadMs),
			lexicalIndexBuildMs: Math.round(lexicalBuildMs),
			// Typed arrays plus an estimate of the chunk-id and vocabulary strings (process heap deltas
			// are swamped by the garbage collector running during the build).
			lexicalIndexMegabytes: Number(lexicalMegabytes.toFixed(1)),
			insertSeconds: Number(((performance.now() - insertStarted) / 1000).toFixed(1)),
		};
		log(`search ${size}: ${JSON.stringify(latency[String(size)])}`);
		// Frees the source's cached index before the next size, as a change to its chunks would.
		await pool.query("select pg_notify($1, $2)", [KNOWLEDGE_CHUNKS_CHANNEL.name, source.id]);
	}
	results.searchLatency = latency;

	// 3. Cranfield retrieval quality.
	const directory = new URL("./data/cranfield/", import.meta.url);
	const corpus = (await readFile(new URL("corpus.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; title: string; text: string });
	const queries = (await readFile(new URL("queries.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; text: string });
	const qrels = new Map<string, Map<string, number>>();
	for (const line of (await readFile(new URL("qrels.tsv", directory), "utf8")).trim().split("\n").slice(1)) {
		const [queryId, documentId, score] = line.split("\t");
		if (!qrels.has(queryId)) qrels.set(queryId, new Map());
		qrels.get(queryId)?.set(documentId, Number(score));
	}
	const cranSource = (await api("POST", "/knowledge/sources", { name: "cranfield" })).id as string;
	const cranStarted = performance.now();
	const uploaded: string[] = [];
	for (let index = 0; index < corpus.length; index += 16) {
		const batch = corpus.slice(index, index + 16);
		const created = await Promise.all(
			batch.map((document) => api("POST", `/knowledge/sources/${cranSource}/documents/upload`, { filename: `${document._id}.txt`, contentBase64: Buffer.from(document.text).toString("base64") })),
		);
		uploaded.push(...created.map((document: { id: string }) => document.id));
	}
	for (;;) {
		const { rows } = await pool.query("select count(*) filter (where status = 'READY')::int as ready, count(*) filter (where status = 'FAILED')::int as failed from knowledge_documents where source_id = $1", [cranSource]);
		if (rows[0].ready + rows[0].failed === corpus.length) break;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	const cranIngestSeconds = (performance.now() - cranStarted) / 1000;
	const filenameOf = new Map<string, string>();
	for (const row of (await pool.query("select c.id, d.filename from knowledge_chunks c join knowledge_documents d on d.id = c.document_id where c.source_id = $1", [cranSource])).rows) {
		filenameOf.set(row.id, row.filename.replace(/\.txt$/, ""));
	}
	const firstDistinct = (ids: string[], limit = 10) => [...new Set(ids)].slice(0, limit);
	const em = () => platform.services.orm.em.fork();
	const methods: Record<string, (query: string) => Promise<string[]>> = {
		hybrid: async (query) => (await searchKnowledgeSource(operator(), { workspaceId: setup.workspaceId, sourceId: cranSource, query, topK: 30 })).map((hit) => hit.filename.replace(/\.txt$/, "")),
		fullTextOr: async (query) => (await fullTextRanking(em(), cranSource, query, 30)).map((id) => filenameOf.get(id) as string),
		fullTextWebsearchAnd: async (query) => {
			const rows = await pool.query(
				`select c.id from knowledge_chunks c where c.source_id = $1 and c.search_vector @@ websearch_to_tsquery('english', $2)
				 order by ts_rank_cd(c.search_vector, websearch_to_tsquery('english', $2)) desc limit 30`,
				[cranSource, query],
			);
			return rows.rows.map((row) => filenameOf.get(row.id) as string);
		},
		lexicalBm25Only: async (query) => (await lexicalIndexCache.rank(em(), cranSource, query, 30)).map((hit) => filenameOf.get(hit.chunkId) as string),
		vectorOnly: async (query) => (await vectorCache.nearest(em(), cranSource, embedBuiltin(query), 30)).map((hit) => filenameOf.get(hit.chunkId) as string),
	};
	const evaluate = (ranking: string[], judgements: Map<string, number>, withSource: boolean) => {
		const relevant = new Map([...judgements].filter(([, score]) => withSource || score < 5));
		if (relevant.size === 0) return null;
		const dcg = ranking.reduce((sum, id, index) => sum + (relevant.get(id) ?? 0) / Math.log2(index + 2), 0);
		const ideal = [...relevant.values()].sort((left, right) => right - left).slice(0, 10).reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
		const found = ranking.filter((id) => relevant.has(id)).length;
		return { ndcg: dcg / ideal, recall: found / relevant.size };
	};
	const quality: Record<string, unknown> = {};
	for (const [name, method] of Object.entries(methods)) {
		const scores = { with: { ndcg: 0, recall: 0, n: 0 }, without: { ndcg: 0, recall: 0, n: 0 } };
		for (const query of queries) {
			const judgements = qrels.get(query._id);
			if (!judgements) continue;
			const ranking = firstDistinct(await method(query.text));
			for (const [key, withSource] of [["with", true], ["without", false]] as const) {
				const score = evaluate(ranking, judgements, withSource);
				if (!score) continue;
				scores[key].ndcg += score.ndcg;
				scores[key].recall += score.recall;
				scores[key].n += 1;
			}
		}
		quality[name] = {
			ndcgAt10: Number((scores.with.ndcg / scores.with.n).toFixed(4)),
			recallAt10: Number((scores.with.recall / scores.with.n).toFixed(4)),
			ndcgAt10WithoutGrade5: Number((scores.without.ndcg / scores.without.n).toFixed(4)),
			recallAt10WithoutGrade5: Number((scores.without.recall / scores.without.n).toFixed(4)),
			queries: scores.with.n,
		};
		log(`cranfield ${name}: ${JSON.stringify(quality[name])}`);
	}
	results.cranfield = { documents: corpus.length, ingestSeconds: Number(cranIngestSeconds.toFixed(1)), gain: "linear (judgement grade)", ...quality };
	await writeFile(new URL("./results/knowledge.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
	log("\n| Search latency (ms) | hybrid p50 | hybrid p99 | full-text baseline p50 | baseline p99 |\n|---|---|---|---|---|");
	for (const [size, entry] of Object.entries(latency) as [string, Record<string, { hybrid: { p50Ms: number; p99Ms: number }; fullTextBaseline: { p50Ms: number; p99Ms: number } }>][]) {
		for (const mix of ["frequentWordQueries", "uniformWordQueries"]) {
			const { hybrid, fullTextBaseline } = entry[mix];
			log(`| ${size} chunks, ${mix} | ${hybrid.p50Ms} | ${hybrid.p99Ms} | ${fullTextBaseline.p50Ms} | ${fullTextBaseline.p99Ms} |`);
		}
	}
	log("\n| Cranfield | nDCG@10 | recall@10 | nDCG@10 without grade 5 | recall@10 without grade 5 |\n|---|---|---|---|---|");
	for (const [name, entry] of Object.entries(quality) as [string, Record<string, number>][]) {
		log(`| ${name} | ${entry.ndcgAt10} | ${entry.recallAt10} | ${entry.ndcgAt10WithoutGrade5} | ${entry.recallAt10WithoutGrade5} |`);
	}
	log("wrote bench/results/knowledge.json");
} finally {
	await pool.end();
	await platform.close();
	await database.drop();
	await rm(dataDirectory, { recursive: true, force: true });
}
