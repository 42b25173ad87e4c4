/**
 * npm run bench:knowledge-floor — the relevance floor of attached knowledge, measured on Cranfield.
 *
 * The 1,400 Cranfield abstracts (bench/data/cranfield) are uploaded through the API into one source
 * (builtin embedder) and ingested as any upload is. Each judged query then goes through
 * retrieveKnowledge(), the code that picks the chunks a deployed assistant adds to its prompt, with
 * the floor off (minScore 0), and every chunk it returns is labelled relevant when its document is
 * judged relevant to the query (any grade, 1 to 5). From those, for topK 5 and 10:
 *
 * - the share of relevant chunks per score band (what "rarely relevant" looks like),
 * - for each candidate floor: chunks injected per query, their precision, the share of the relevant
 *   chunks kept (recall against no floor) and of the irrelevant ones dropped; on the tuning half of
 *   the queries (id = 1 mod 4, which chose the floor), the held-out half (id = 3 mod 4) and all,
 * - the same for off-topic inputs (questions no aeronautics abstract answers: every chunk injected
 *   for them is unrelated), and
 * - the scale: the best raw BM25 score per query against the best fused score, to show why the
 *   floor is set on the fused score (relative to the input's best match) and not on a raw one.
 *
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database is created and dropped). Results: bench/results/knowledge-floor.json.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { queryLexemes } from "../server/knowledge/index/lexical-index";
import { rankLexically } from "../server/knowledge/search/rank-lexically";
import { createApiKey } from "../server/modules/api-keys/create-api-key";
import { DEFAULT_KNOWLEDGE_MIN_SCORE, retrieveKnowledge } from "../server/modules/assistants/retrieve-knowledge-context";
import { createUseCaseContext } from "../server/modules/platform-services";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { startPlatform } from "../server/platform";
import { createLogger } from "../server/shared/logger";
import { OPERATOR } from "../server/shared/principal";
import { createTestDatabase } from "../test/helpers/database";
import { describeRun } from "./run-record";

const FLOORS = [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6];
const BANDS = [0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001];
/** The rule that chose the default: the highest candidate floor keeping this share of the relevant chunks at every topK, on the tuning half. */
const RELEVANT_KEPT_AT_LEAST = 0.95;
const TOP_K = [5, 10, 20];

/** Questions from other domains: nothing in a collection of aeronautics abstracts answers them. */
const OFF_TOPIC = [
	"how do I reset my password",
	"what is the refund policy for orders shipped abroad",
	"best recipe for sourdough bread with a crisp crust",
	"who won the football world cup in 2018",
	"how many vacation days do new employees get",
	"what are the symptoms of seasonal flu in children",
	"how to change a flat tyre on a bicycle",
	"which programming language should I learn first",
	"what is the capital of australia",
	"how do I cancel my subscription",
	"tips for growing tomatoes on a balcony",
	"what time does the store open on sundays",
	"how to write a cover letter for a job application",
	"what is the difference between a roth ira and a traditional ira",
	"how long should I boil an egg",
	"can I bring my dog to the office",
	"how to install a printer driver on windows",
	"what are good exercises for lower back pain",
	"how to apply for a passport renewal",
	"what is the plot of hamlet",
];

if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
const dataDirectory = await mkdtemp(join(tmpdir(), "bench-knowledge-floor-"));
const platform = await startPlatform({
	databaseUrl: database.url,
	secretKey: "bench-secret-key-0123456789abcdef0123456789",
	port: 0,
	host: "127.0.0.1",
	logger: createLogger("error"),
	dataDirectory,
	quotas: { rateLimitPerMinute: 0 },
});
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
const operator = () => createUseCaseContext(platform.services, OPERATOR);
const log = (message: string) => process.stdout.write(`${message}\n`);
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

interface Retrieved {
	score: number;
	relevant: boolean;
}

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
		return (await response.json()) as { id: string };
	};

	// 1. The collection, uploaded and ingested through the API.
	const directory = new URL("./data/cranfield/", import.meta.url);
	const corpus = (await readFile(new URL("corpus.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; text: string });
	const queries = (await readFile(new URL("queries.jsonl", directory), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { _id: string; text: string });
	const qrels = new Map<string, Set<string>>();
	for (const line of (await readFile(new URL("qrels.tsv", directory), "utf8")).trim().split("\n").slice(1)) {
		const [queryId, documentId] = line.split("\t");
		if (!qrels.has(queryId)) qrels.set(queryId, new Set());
		qrels.get(queryId)?.add(documentId);
	}
	const sourceId = (await api("POST", "/knowledge/sources", { name: "cranfield", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } })).id;
	const started = performance.now();
	for (let index = 0; index < corpus.length; index += 16) {
		await Promise.all(
			corpus
				.slice(index, index + 16)
				.map((document) => api("POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename: `${document._id}.txt`, contentBase64: Buffer.from(document.text).toString("base64") })),
		);
	}
	for (;;) {
		const { rows } = await pool.query("select count(*) filter (where status in ('READY', 'FAILED'))::int as settled from knowledge_documents where source_id = $1", [sourceId]);
		if (rows[0].settled === corpus.length) break;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	log(`ingested ${corpus.length} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);

	// 2. What retrieveKnowledge() returns for each input with the floor off.
	const maxTopK = Math.max(...TOP_K);
	const retrieve = (query: string) => retrieveKnowledge(operator(), { workspaceId: setup.workspaceId, query, knowledge: [{ sourceId, topK: maxTopK, minScore: 0 }] });
	const judged = queries.filter((query) => qrels.has(query._id));
	const halves = { tuning: judged.filter((query) => Number(query._id) % 4 === 1), heldOut: judged.filter((query) => Number(query._id) % 4 === 3), all: judged };
	const retrievedByQuery = new Map<string, Retrieved[]>();
	for (const query of judged) {
		const relevantDocuments = qrels.get(query._id) as Set<string>;
		retrievedByQuery.set(
			query._id,
			(await retrieve(query.text)).map((chunk) => ({ score: chunk.score, relevant: relevantDocuments.has(chunk.filename.replace(/\.txt$/, "")) })),
		);
	}
	const offTopic: Retrieved[][] = [];
	for (const text of OFF_TOPIC) offTopic.push((await retrieve(text)).map((chunk) => ({ score: chunk.score, relevant: false })));

	// 3. The scale: the best raw BM25 score of each query against its best fused score.
	const lexicon = await platform.services.search.lexical.lexiconFor(platform.services.orm.em.fork(), { id: sourceId, workspace: setup.workspaceId });
	const bestRaw: number[] = [];
	const bestFused: number[] = [];
	for (const query of [...judged.map((entry) => entry.text), ...OFF_TOPIC]) {
		const best = rankLexically(lexicon, await queryLexemes(platform.services.orm.em.fork(), query), 1)[0];
		if (best) bestRaw.push(best.score);
	}
	for (const chunks of [...retrievedByQuery.values(), ...offTopic]) if (chunks[0]) bestFused.push(chunks[0].score);
	const spread = (values: number[]) => {
		const sorted = [...values].sort((left, right) => left - right);
		const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))], 3);
		return { queries: sorted.length, min: at(0), p10: at(0.1), p50: at(0.5), p90: at(0.9), max: at(1) };
	};
	const scale = { bestRawBm25: spread(bestRaw), bestFusedScore: spread(bestFused) };
	log(`scale: ${JSON.stringify(scale)}`);

	// 4. Bands and floors.
	const measure = (set: { _id: string }[], topK: number) => {
		const chunks = set.flatMap((query) => (retrievedByQuery.get(query._id) as Retrieved[]).slice(0, topK));
		const relevantAtZero = chunks.filter((chunk) => chunk.relevant).length;
		const irrelevantAtZero = chunks.length - relevantAtZero;
		const floors = FLOORS.map((floor) => {
			const kept = chunks.filter((chunk) => chunk.score >= floor);
			const relevant = kept.filter((chunk) => chunk.relevant).length;
			return {
				floor,
				chunksPerQuery: round(kept.length / set.length, 2),
				precision: round(kept.length === 0 ? 0 : relevant / kept.length),
				relevantKept: round(relevant / relevantAtZero),
				irrelevantDropped: round((irrelevantAtZero - (kept.length - relevant)) / irrelevantAtZero),
			};
		});
		const bands = BANDS.slice(0, -1).map((low, index) => {
			const inBand = chunks.filter((chunk) => chunk.score >= low && chunk.score < BANDS[index + 1]);
			const relevant = inBand.filter((chunk) => chunk.relevant).length;
			return { from: low, to: Math.min(1, BANDS[index + 1]), chunks: inBand.length, relevantShare: inBand.length === 0 ? null : round(relevant / inBand.length) };
		});
		return { queries: set.length, chunks: chunks.length, relevantChunks: relevantAtZero, floors, bands };
	};
	const offTopicAt = (topK: number) =>
		FLOORS.map((floor) => {
			const injected = offTopic.map((chunks) => chunks.slice(0, topK).filter((chunk) => chunk.score >= floor).length);
			return { floor, chunksPerInput: round(injected.reduce((sum, count) => sum + count, 0) / injected.length, 2), inputsWithNothingInjected: round(injected.filter((count) => count === 0).length / injected.length) };
		});
	const measureAll = (topK: number) => ({ tuning: measure(halves.tuning, topK), heldOut: measure(halves.heldOut, topK), all: measure(halves.all, topK), offTopic: offTopicAt(topK) });
	const byTopK: Record<string, ReturnType<typeof measureAll>> = {};
	for (const topK of TOP_K) {
		const result = measureAll(topK);
		byTopK[`topK${topK}`] = result;
		log(`\ntopK ${topK}: relevant share per score band (all ${result.all.queries} queries, ${result.all.chunks} chunks)`);
		log("| score band | chunks | relevant |\n|---|---|---|");
		for (const band of result.all.bands) log(`| ${band.from}–${band.to} | ${band.chunks} | ${band.relevantShare ?? "–"} |`);
		log(`\ntopK ${topK}: floors (tuning half / held-out half; off-topic inputs)`);
		log("| floor | chunks per query | precision | relevant kept | irrelevant dropped | off-topic: chunks per input, inputs with none |\n|---|---|---|---|---|---|");
		for (const [index, floor] of FLOORS.entries()) {
			const cell = (key: "chunksPerQuery" | "precision" | "relevantKept" | "irrelevantDropped") => `${result.tuning.floors[index][key]} / ${result.heldOut.floors[index][key]}`;
			const off = result.offTopic[index];
			log(`| ${floor}${floor === DEFAULT_KNOWLEDGE_MIN_SCORE ? " (default)" : ""} | ${cell("chunksPerQuery")} | ${cell("precision")} | ${cell("relevantKept")} | ${cell("irrelevantDropped")} | ${off.chunksPerInput}, ${off.inputsWithNothingInjected} |`);
		}
	}

	// The choice, re-made from this run: the highest floor keeping enough of the relevant chunks at every topK, tuning half only.
	const chosen = Math.max(...FLOORS.filter((floor, index) => Object.values(byTopK).every((result) => result.tuning.floors[index].relevantKept >= RELEVANT_KEPT_AT_LEAST)));
	const heldOutAtChosen = Object.fromEntries(Object.entries(byTopK).map(([topK, result]) => [topK, result.heldOut.floors[FLOORS.indexOf(chosen)]]));
	log(`\nfloor chosen on the tuning half (relevant chunks kept >= ${RELEVANT_KEPT_AT_LEAST} at topK ${TOP_K.join(", ")}): ${chosen}; the code's default: ${DEFAULT_KNOWLEDGE_MIN_SCORE}`);
	log(`held-out half at ${chosen}: ${JSON.stringify(heldOutAtChosen)}`);

	const results = {
		...describeRun({ embedder: "builtin", topK: TOP_K, floors: FLOORS, offTopicInputs: OFF_TOPIC.length }),
		choice: { rule: `highest floor keeping >= ${RELEVANT_KEPT_AT_LEAST} of the relevant chunks at topK ${TOP_K.join(", ")} on the tuning half`, chosen, heldOutAtChosen },
		documents: corpus.length,
		relevance: "a chunk is relevant when its document is judged for the query (grade 1 to 5)",
		split: { tuning: "query id = 1 mod 4", heldOut: "query id = 3 mod 4" },
		defaultFloor: DEFAULT_KNOWLEDGE_MIN_SCORE,
		scale,
		...byTopK,
	};
	await writeFile(new URL("./results/knowledge-floor.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
	log("\nwrote bench/results/knowledge-floor.json");
} finally {
	await pool.end();
	await platform.close();
	await database.drop();
	await rm(dataDirectory, { recursive: true, force: true });
}
