/**
 * npm run bench:knowledge-scale — one knowledge source grown through 100,000 and 1,000,000 chunks
 * of generated text, uploaded through the HTTP API to a server in its own process, as a user would.
 *
 * Text: seeded, 1 MB text documents whose words follow a Zipf law over a 50,000-word vocabulary
 * (so postings look like a language: a few very common words, a long tail of rare ones).
 * At each stage: ingestion MB/s (upload of the stage's documents to the last READY), the first
 * search after the ingestion, how long the background index builds it starts take (HNSW graph,
 * lexicon file: until the server's knowledge_index_builder_tasks reads zero), search p50 and p99
 * over 200 seeded queries after that (sequential, through the API), then over 200 other queries
 * with the server's code warm (the first searches after a build run partly unoptimized: V8
 * optimizes the ranking's code as it goes, and collects what the builds left), then 1,000 more
 * (both sets again, alternately: sustained p50 and p99, whose p99 one pause cannot set), the same 200 over
 * a source of one small document (the floor: what any search through the API costs on this
 * machine in this run, to read the others against), the first search after a restart of the
 * server, the server's RSS (now, and its peak during the ingestion, during the first search and
 * builds, and during the searches), and the slowest `/healthz` answer while it all ran (a client
 * polling one request after another throughout), beside the server's longest event-loop delay
 * during the ingestion, the first search, the builds and the searches (a slow /healthz with a
 * short delay waited for something else than the event loop: the database, the machine).
 *
 * `--stages 20000,60000` runs stages of those sizes instead. `--max-chunks 100000` stops after the first stage (the 1,000,000-chunk stage ingests about
 * 2 GB and takes most of an hour on a 2-core machine). The server runs with the default settings
 * (KNOWLEDGE_SEARCH_MEMORY_MB and the rest, from this process's environment) except the rate
 * limit (off) and the storage allowance (raised to hold the corpus).
 * The server's node gets the flags `npm start` gives it (package.json's config.serverNodeFlags);
 * BENCH_SERVER_NODE_FLAGS adds others (diagnostics: `--trace-gc` prints to stderr).
 * Ingestion runs as `npm start` runs it by default: in the worker process the server starts beside
 * itself (KNOWLEDGE_WORKER=process); its peak RSS during the ingestion is reported too.
 * BENCH_KNOWLEDGE_WORKER=inline runs it in the server's own process instead (KNOWLEDGE_WORKER=inline).
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database, dropped at the end). Results: bench/results/knowledge-scale.json.
 * BENCH_KEEP=<file>: the database and the server's data directory are kept, and what a later
 * server needs to search them (database URL, data directory, API key, source ids) is written to
 * <file>: for profiling the searches of a large source without ingesting it again.
 * BENCH_TIMELINE=<file>: every search (its phase, when it started in ms since the epoch, how long
 * it took) and every `/healthz` answer slower than 30 ms, as JSON lines: to set a slow moment
 * beside what else the machine did then (PostgreSQL's log, a system sampler).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { Agent, fetch as fetchWithAgent } from "undici";
import { buildBundles, SERVER_ENTRY_POINTS } from "../scripts/build";
import { createTestDatabase } from "../test/helpers/database";
import { calibrateMachine, describeCalibration } from "./machine-calibration";
import { processMemoryMiB, restartPeakWindow } from "./process-memory";
import { describeRun } from "./run-record";
import { generatedWords, seededRandom, zipfRanks } from "../test/helpers/zipf-text";

const argument = (name: string) => {
	const index = process.argv.indexOf(name);
	return index >= 0 ? process.argv[index + 1] : undefined;
};
const MAX_CHUNKS = Number(argument("--max-chunks") ?? 1_000_000);
// A smaller --max-chunks than the first stage is one stage of that size (a quick check of the bench itself).
// `--stages 20000,60000`: stages of one's choosing (a quick look at what growing a source that is already loaded costs).
const STAGES = argument("--stages")?.split(",").map(Number) ?? (MAX_CHUNKS < 100_000 ? [MAX_CHUNKS] : [100_000, 1_000_000].filter((stage) => stage <= MAX_CHUNKS));
if (STAGES.some((stage, index) => !Number.isInteger(stage) || stage < 1 || stage <= (STAGES[index - 1] ?? 0))) throw new Error("--stages: chunk counts, growing");
const QUERIES = 200;
const SUSTAINED_SEARCHES = 1_000;
const DOCUMENT_BYTES = 1024 * 1024;
const VOCABULARY = 50_000;
const UPLOADS_IN_FLIGHT = 2;
const SECRET_KEY = "bench-scale-secret-key-0123456789abcdef0123";
const METRICS_TOKEN = "bench-scale-metrics-token-0123456789";
const KEEP = process.env.BENCH_KEEP;
const TIMELINE = process.env.BENCH_TIMELINE;
const INLINE_WORKER = process.env.BENCH_KNOWLEDGE_WORKER === "inline";
const PRESIGNED_UPLOADS = process.env.BENCH_UPLOAD === "presigned";
/**
 * The server (with the worker it starts) and the `/healthz` poller each run in a session of their
 * own, as a service manager runs a service and as a monitor polls from elsewhere: Linux shares the
 * cores between sessions first (autogroups), so in this process's session the bench's document
 * generation (which on a deployment runs on other machines) weighed as much as the whole server,
 * and the poller waited behind it. BENCH_SESSION=shared runs both in this session, as runs before
 * 2026-12-07 did.
 */
const OWN_SESSIONS = process.env.BENCH_SESSION !== "shared";
const log = (message: string) => process.stdout.write(`${message}\n`);

if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
const dataDirectory = await mkdtemp(join(tmpdir(), "bench-knowledge-scale-"));
const pool = new pg.Pool({ connectionString: database.url, max: 2 });

// Seeded generator; words are pronounceable-ish letter strings, ranked by a Zipf law (s = 1).
const random = seededRandom(20_261_126);
const words = generatedWords(VOCABULARY);
const drawRank = zipfRanks(VOCABULARY);
const zipfRank = () => drawRank(random);
/**
 * A document's bytes, written straight into one buffer: the text the earlier generator built from
 * strings (sentences of words joined by spaces, paragraph breaks as parts of their own, the parts
 * joined by spaces), byte for byte from the same draws, at a fraction of its processor time. The
 * client stands in for others' machines; on this one it shared the two cores with the server, and
 * building each megabyte from strings took 60-100 ms of them.
 */
const wordBytes = words.map((word) => Buffer.from(word, "latin1"));
const generateDocument = (): Buffer => {
	// Room past DOCUMENT_BYTES for the last sentence and the paragraph breaks' third byte (about 500 a document).
	const bytes = Buffer.allocUnsafe(DOCUMENT_BYTES + 64 * 1024);
	let length = 0;
	let written = 0;
	const put = (byte: number) => {
		bytes[written++] = byte;
	};
	while (length < DOCUMENT_BYTES) {
		if (written > 0) put(0x20);
		const start = written;
		const count = 8 + Math.floor(random() * 14);
		for (let index = 0; index < count; index++) {
			if (index > 0) put(0x20);
			written += wordBytes[zipfRank()].copy(bytes, written);
		}
		put(0x2e);
		length += written - start + 1;
		if (random() < 0.08) {
			put(0x20);
			put(0x0a);
			put(0x0a);
			length += 2;
		}
	}
	return bytes.subarray(0, written);
};
// Queries a person might type: two to four words, mostly from the middle of the ranks.
const drawQueries = (draw: () => number) => Array.from({ length: QUERIES }, () => Array.from({ length: 2 + Math.floor(draw() * 3) }, () => words[Math.min(VOCABULARY - 1, 20 + drawRank(draw) * 3)]).join(" "));
const queries = drawQueries(random);
// A second set, drawn from a generator of its own (the corpus and the first set stay as they were).
const warmQueries = drawQueries(seededRandom(20_261_127));

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

const startConfig = (JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { config?: { glibcTunables?: string; serverNodeFlags?: string } }).config;
/** The memory settings `npm start` gives the server's process (package.json's config.glibcTunables), unless this process's environment has its own. */
const startTunables = startConfig?.glibcTunables;
/** The node flags `npm start` gives the server (package.json's config.serverNodeFlags: its heap's settings). */
const startNodeFlags = (startConfig?.serverNodeFlags ?? "").split(" ").filter(Boolean);

const serverEnvironment = (port: number) => ({
	...(startTunables ? { GLIBC_TUNABLES: startTunables } : {}),
	...process.env,
	DATABASE_URL: database.url,
	SECRET_KEY,
	DATA_DIR: dataDirectory,
	PORT: String(port),
	HOST: "127.0.0.1",
	LOG_LEVEL: "error",
	RATE_LIMIT_PER_MINUTE: "0",
	KNOWLEDGE_STORAGE_ALLOWANCE_BYTES: String(8 * 1024 ** 3),
	...(INLINE_WORKER ? { KNOWLEDGE_WORKER: "inline" } : {}),
	// For knowledge_index_builder_tasks: the bench waits for the background index builds a first search starts.
	METRICS_TOKEN,
});

interface RunningServer {
	process: ChildProcess;
	url: string;
}

async function startServer(): Promise<RunningServer> {
	const port = await freePort();
	// BENCH_SERVER_NODE_FLAGS: extra flags for the server's node (diagnostics such as --trace-gc, whose output goes to this process's stderr).
	const extraFlags = (process.env.BENCH_SERVER_NODE_FLAGS ?? "").split(" ").filter(Boolean);
	const child = spawn(process.execPath, [...extraFlags, "--enable-source-maps", ...startNodeFlags, "dist/bench-scale/main.js"], {
		env: serverEnvironment(port),
		stdio: ["ignore", extraFlags.length > 0 ? process.stderr : "ignore", "inherit"],
		detached: OWN_SESSIONS,
	});
	const url = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
		const ok = await fetch(`${url}/healthz`).then(
			(response) => response.ok,
			() => false,
		);
		if (ok) return { process: child, url };
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error("the server did not answer /healthz in 2 minutes");
}

async function stopServer(server: RunningServer): Promise<void> {
	const exited = new Promise((resolve) => server.process.once("exit", resolve));
	server.process.kill("SIGTERM");
	await exited;
}

/**
 * Waits until the server's index-builder threads have had nothing running or queued for two reads
 * in a row (a build's end may start a fold or a file): the HNSW build and the lexicon file a
 * large source's first search starts. Returns how long that took, in ms, and the server's longest
 * event-loop delay meanwhile (each read of /metrics starts a new window of that gauge).
 */
async function indexBuildsSettled(server: RunningServer): Promise<{ ms: number; longestLoopDelayMs: number }> {
	const start = performance.now();
	let idleReads = 0;
	let longestLoopDelayMs = 0;
	while (idleReads < 2) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		const metrics = await metricsOf(server);
		const tasks = [...metrics.matchAll(/^knowledge_index_builder_tasks\{state="\w+"\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
		longestLoopDelayMs = Math.max(longestLoopDelayMs, loopDelayOf(metrics));
		idleReads = tasks === 0 ? idleReads + 1 : 0;
	}
	return { ms: performance.now() - start, longestLoopDelayMs };
}

async function metricsOf(server: RunningServer): Promise<string> {
	return (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
}

/** The server's longest event-loop delay since the previous read, in ms (a read starts a new window). */
async function longestLoopDelayMs(server: RunningServer): Promise<number> {
	return loopDelayOf(await metricsOf(server));
}

function loopDelayOf(metrics: string): number {
	return round(Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN) * 1000);
}

/**
 * Starts a new window of the server's peak resident memory (VmHWM; Linux: "5" to clear_refs),
 * so each phase's peak is its own. Returns the peak of the window that ends, in MiB.
 */
async function takePeakMiB(server: RunningServer): Promise<number> {
	const { peakMiB } = await memoryOf(server);
	await restartPeakWindow(server.process.pid as number);
	return peakMiB;
}

/** The ingestion worker process the server started (KNOWLEDGE_WORKER=process), if any. */
async function workerPidOf(server: RunningServer): Promise<number | undefined> {
	const pid = server.process.pid as number;
	const threads = await readdir(`/proc/${pid}/task`).catch(() => []);
	for (const thread of threads) {
		const children = (await readFile(`/proc/${pid}/task/${thread}/children`, "utf8").catch(() => "")).split(" ").filter(Boolean);
		for (const child of children) {
			const commandLine = await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "");
			if (commandLine.includes("worker.js")) return Number(child);
		}
	}
	return undefined;
}

/**
 * The server's processor time so far, in ms (user, system): its main thread's (the event loop's),
 * and its other threads' together (the process's total, which keeps the time of threads that ended, less the main thread's).
 */
async function threadCpuMs(server: RunningServer): Promise<{ main: [number, number]; others: [number, number] }> {
	const pid = server.process.pid as number;
	const ticksToMs = 10;
	const timesOf = async (path: string): Promise<[number, number]> => {
		const stat = await readFile(path, "utf8").catch(() => "");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return [Number(fields[11] ?? 0) * ticksToMs, Number(fields[12] ?? 0) * ticksToMs];
	};
	const main = await timesOf(`/proc/${pid}/task/${pid}/stat`);
	const total = await timesOf(`/proc/${pid}/stat`);
	return { main, others: [total[0] - main[0], total[1] - main[1]] };
}

/** The positions in `latencies` of its `count` largest values, the largest first. */
function slowestPositions(latencies: number[], count: number): number[] {
	return latencies
		.map((value, position) => ({ value, position }))
		.sort((a, b) => b.value - a.value)
		.slice(0, count)
		.map(({ position }) => position);
}

/** Processor time per search between two readings of threadCpuMs, in ms (user, system). */
function cpuPerSearch(before: Awaited<ReturnType<typeof threadCpuMs>>, after: Awaited<ReturnType<typeof threadCpuMs>>, searches: number) {
	const per = (index: 0 | 1, of: "main" | "others") => round((after[of][index] - before[of][index]) / searches, 2);
	return { mainThreadUser: per(0, "main"), mainThreadSystem: per(1, "main"), otherThreadsUser: per(0, "others"), otherThreadsSystem: per(1, "others") };
}

/** Resident and peak resident memory of the server process, in MiB. */
async function memoryOf(server: RunningServer): Promise<{ rssMiB: number; peakMiB: number }> {
	const { rssMiB, peakMiB } = await processMemoryMiB(server.process.pid as number);
	return { rssMiB: round(rssMiB), peakMiB: round(peakMiB) };
}

/**
 * Polls /healthz one request after another; the slowest answer (a refused or failed one counts as
 * its time). In a process of its own (in a session of its own unless BENCH_SESSION=shared): this
 * process generates megabyte documents and encodes uploads between polls, which would otherwise be
 * counted as the server's slowness.
 */
function watchHealth() {
	const poller = spawn(
		process.execPath,
		[
			"-e",
			`let url;
			let slowest = 0;
			const timeline = process.env.BENCH_TIMELINE;
			let running = true;
			process.on("message", (message) => {
				if (message.stop) running = false;
				else if (message.take) { process.send({ slowest }); slowest = 0; }
				else url = message.url;
			});
			process.on("disconnect", () => { running = false; });
			(async () => {
				while (running) {
					if (!url) { await new Promise((resolve) => setTimeout(resolve, 50)); continue; }
					const startedAt = Date.now();
					const start = performance.now();
					await fetch(url + "/healthz").then((response) => response.arrayBuffer()).catch(() => undefined);
					const ms = performance.now() - start;
					slowest = Math.max(slowest, ms);
					if (timeline && ms > 30) require("node:fs").appendFileSync(timeline, JSON.stringify({ healthz: true, at: startedAt, ms: Math.round(ms * 10) / 10 }) + "\\n");
					await new Promise((resolve) => setTimeout(resolve, 20));
				}
				if (process.connected) process.disconnect();
			})();`,
		],
		{ stdio: ["ignore", "ignore", "inherit", "ipc"], detached: OWN_SESSIONS },
	);
	return {
		watch(server: RunningServer | undefined) {
			poller.send({ url: server?.url });
		},
		/** The slowest answer since the last call, in ms. */
		async take(): Promise<number> {
			const answer = new Promise<number>((resolve) => poller.once("message", (message: { slowest: number }) => resolve(message.slowest)));
			poller.send({ take: true });
			return round(await answer);
		},
		kill() {
			poller.kill();
		},
		async stop() {
			const exited = new Promise((resolve) => poller.once("exit", resolve));
			poller.send({ stop: true });
			await exited;
		},
	};
}

// The server runs as `npm start` runs it: bundled ahead, not through tsx (whose loader every
// index-builder thread would start again: about a second per thread under tsx).
const { main, worker, parser, "index-builder": indexBuilder, "body-thread": bodyThread } = SERVER_ENTRY_POINTS;
await buildBundles({ main, worker, parser, "index-builder": indexBuilder, "body-thread": bodyThread }, "dist/bench-scale");

// Recorded before the run, so the load average is the one the run started under.
const machine = await calibrateMachine(database.url);
log(describeCalibration(machine));
const run = describeRun({ stages: STAGES, queries: QUERIES, documentBytes: DOCUMENT_BYTES, vocabulary: VOCABULARY, uploadsInFlight: UPLOADS_IN_FLIGHT, searchMemoryMb: process.env.KNOWLEDGE_SEARCH_MEMORY_MB ?? "default", vectorColumnCacheMb: process.env.KNOWLEDGE_VECTOR_COLUMN_CACHE_MB ?? "default", knowledgeWorker: INLINE_WORKER ? "inline" : "process", sessions: OWN_SESSIONS ? "own" : "shared", glibcTunables: process.env.GLIBC_TUNABLES ?? startTunables ?? null, serverNodeFlags: startNodeFlags.join(" ") });
let server: RunningServer | undefined;
const health = watchHealth();
const timeline: string[] = [];
let searchPhase = "";
const rows: Record<string, unknown>[] = [];
// Children in sessions of their own do not receive this terminal's interrupt: they stop with this process.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
	process.once(signal, () => {
		server?.process.kill("SIGTERM");
		health.kill();
		process.exit(130);
	});
}
try {
	server = await startServer();
	health.watch(server);
	const { stdout } = await promisify(execFile)(
		"npm",
		["run", "--silent", "admin", "--", "bootstrap", "--organization", "Bench", "--workspace", "Scale", "--email", "bench@example.com", "--password", "bench password 123", "--json"],
		{ env: serverEnvironment(0) },
	);
	const { apiKey } = JSON.parse(stdout) as { apiKey: string };
	// No headers timeout: a first search of a million chunks builds its structures first, minutes on a slow machine (fetch's default gives up at 300 s).
	const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
	const api = async (method: string, path: string, body?: unknown) => {
		const response = await fetchWithAgent(`${(server as RunningServer).url}${path}`, {
			dispatcher: patient,
			method,
			headers: { authorization: `Bearer ${apiKey}`, ...(body ? { "content-type": "application/json" } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
		if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
		return response.json() as Promise<Record<string, unknown>>;
	};
	const sourceId = (await api("POST", "/knowledge/sources", { name: "Scale" })).id as string;
	// The floor: the same searches over a source of one small document, through the same server in the same run.
	const floorSourceId = (await api("POST", "/knowledge/sources", { name: "Floor" })).id as string;
	const floorDocument = await api("POST", `/knowledge/sources/${floorSourceId}/documents/upload`, { filename: "floor.txt", contentBase64: Buffer.from(`${warmQueries.join(". ")}.`).toString("base64") });
	while ((await api("GET", `/knowledge/sources/${floorSourceId}/documents/${floorDocument.id}`)).status !== "READY") await new Promise((resolve) => setTimeout(resolve, 200));
	if (KEEP) await writeFile(KEEP, `${JSON.stringify({ databaseUrl: database.url, dataDirectory, secretKey: SECRET_KEY, apiKey, sourceId, floorSourceId, queries, warmQueries }, null, 2)}\n`);
	const searchOnce = async (query: string, source = sourceId) => {
		const startedAt = Date.now();
		const start = performance.now();
		await api("GET", `/knowledge/sources/${source}/search?${new URLSearchParams({ query, topK: "5" })}`);
		const ms = performance.now() - start;
		if (TIMELINE) timeline.push(JSON.stringify({ search: searchPhase, at: startedAt, ms: round(ms) }));
		return ms;
	};
	// The presigned flow: the document, the bytes PUT to the URL it names (the server's own, with local-disk storage), then complete.
	const uploadPresigned = async (filename: string, bytes: Buffer) => {
		const { document, upload } = (await api("POST", `/knowledge/sources/${sourceId}/documents`, { filename, contentType: "text/plain", byteSize: bytes.length })) as {
			document: { id: string };
			upload: { url: string; headers: Record<string, string> };
		};
		const put = await fetchWithAgent(upload.url, { dispatcher: patient, method: "PUT", headers: upload.headers, body: bytes });
		if (!put.ok) throw new Error(`PUT ${filename}: ${put.status} ${await put.text()}`);
		return api("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`);
	};
	const progress = async () => {
		const { rows: [row] } = await pool.query<{ ready: string; failed: string; chunks: string; total: string }>(
			`select count(*) filter (where status = 'READY') as ready, count(*) filter (where status = 'FAILED') as failed,
			        coalesce(sum(chunk_count), 0) as chunks, count(*) as total from knowledge_documents where source_id = $1`,
			[sourceId],
		);
		return { ready: Number(row.ready), failed: Number(row.failed), chunks: Number(row.chunks), total: Number(row.total) };
	};

	let uploadedBytes = 0;
	for (const target of STAGES) {
		await health.take();
		await longestLoopDelayMs(server);
		await takePeakMiB(server);
		const worker = await workerPidOf(server);
		if (worker !== undefined) await restartPeakWindow(worker);
		const stageStart = performance.now();
		let stageBytes = 0;
		// Upload in rounds sized by the chunks per document seen so far, until the target is reached.
		for (let state = await progress(); state.chunks < target; state = await progress()) {
			const perDocument = state.ready > 0 ? state.chunks / state.ready : 450;
			const needed = Math.max(1, Math.ceil((target - state.chunks) / perDocument) - (state.total - state.ready - state.failed));
			const batch = Array.from({ length: Math.min(needed, 50) }, (_, index) => index);
			const inFlight = new Set<Promise<unknown>>();
			for (const index of batch) {
				const text = generateDocument();
				stageBytes += text.length;
				const filename = `part-${uploadedBytes + stageBytes}-${index}.txt`;
				const upload = PRESIGNED_UPLOADS ? uploadPresigned(filename, text) : api("POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename, contentBase64: text.toString("base64") });
				inFlight.add(upload);
				upload.finally(() => inFlight.delete(upload));
				if (inFlight.size >= UPLOADS_IN_FLIGHT) await Promise.race(inFlight);
			}
			await Promise.all(inFlight);
			for (let now = await progress(); now.ready + now.failed < now.total; now = await progress()) await new Promise((resolve) => setTimeout(resolve, 500));
			const now = await progress();
			log(`  ${now.chunks.toLocaleString("en")} chunks in ${now.ready} documents (${now.failed} failed), ${round((performance.now() - stageStart) / 1000)} s`);
		}
		uploadedBytes += stageBytes;
		const ingestionSeconds = (performance.now() - stageStart) / 1000;
		const healthDuringIngestion = await health.take();
		const loopDelayDuringIngestion = await longestLoopDelayMs(server);
		const peakDuringIngestion = await takePeakMiB(server);
		// The worker that ingested (a restart of it mid-stage would show as a smaller peak).
		const workerPeakDuringIngestion = worker === undefined ? null : round((await processMemoryMiB(worker)).peakMiB);
		const state = await progress();

		await longestLoopDelayMs(server);
		searchPhase = `${target} first after ingestion`;
		const firstAfterIngestion = await searchOnce(queries[0]);
		const loopDelayDuringFirstSearch = await longestLoopDelayMs(server);
		const builds = await indexBuildsSettled(server);
		const healthDuringBuilds = await health.take();
		const peakDuringFirstSearchAndBuilds = await takePeakMiB(server);
		const latencies: number[] = [];
		await longestLoopDelayMs(server);
		searchPhase = `${target} first set`;
		for (const query of queries) latencies.push(await searchOnce(query));
		const loopDelayDuringSearches = await longestLoopDelayMs(server);
		// The same again with the server's code warm (the first searches after a start or a build run partly unoptimized).
		const warmLatencies: number[] = [];
		const cpuBeforeWarm = await threadCpuMs(server);
		searchPhase = `${target} warm set`;
		for (const query of warmQueries) warmLatencies.push(await searchOnce(query));
		const warmCpu = cpuPerSearch(cpuBeforeWarm, await threadCpuMs(server), warmQueries.length);
		const loopDelayDuringWarmSearches = await longestLoopDelayMs(server);
		// Sustained: both sets again, alternately, SUSTAINED_SEARCHES in all. Of 200 searches the p99 is the second
		// slowest, which one pause falling on two searches sets; of 1,000 it is the tenth.
		const sustainedLatencies: number[] = [];
		searchPhase = `${target} sustained`;
		for (let index = 0; index < SUSTAINED_SEARCHES; index++) {
			const set = Math.floor(index / QUERIES) % 2 === 0 ? queries : warmQueries;
			sustainedLatencies.push(await searchOnce(set[index % QUERIES]));
		}
		const floorLatencies: number[] = [];
		searchPhase = `${target} floor`;
		const cpuBeforeFloor = await threadCpuMs(server);
		for (const query of warmQueries) floorLatencies.push(await searchOnce(query, floorSourceId));
		const floorCpu = cpuPerSearch(cpuBeforeFloor, await threadCpuMs(server), warmQueries.length);
		const memory = await memoryOf(server);
		const peakDuringSearches = await takePeakMiB(server);
		const healthDuringSearch = await health.take();

		health.watch(undefined);
		await stopServer(server);
		server = undefined;
		server = await startServer();
		health.watch(server);
		searchPhase = `${target} first after restart`;
		const firstAfterRestart = await searchOnce(queries[1]);
		const healthAfterRestart = await health.take();
		const memoryAfterRestart = await memoryOf(server);

		const row = {
			chunks: state.chunks,
			documents: state.ready,
			failedDocuments: state.failed,
			ingestionMBps: round(stageBytes / 1e6 / ingestionSeconds, 2),
			serverLongestLoopDelayDuringIngestionMs: loopDelayDuringIngestion,
			searchP50Ms: round(percentile(latencies, 50)),
			searchP99Ms: round(percentile(latencies, 99)),
			slowestSearchesMs: [...latencies].sort((a, b) => b - a).slice(0, 5).map((value) => round(value)),
			// Which of the set they were (0: the first after the first search's builds): a cold start or something that happened later.
			slowestSearchPositions: slowestPositions(latencies, 5),
			serverLongestLoopDelayDuringSearchesMs: loopDelayDuringSearches,
			warmSearchP50Ms: round(percentile(warmLatencies, 50)),
			warmSearchP99Ms: round(percentile(warmLatencies, 99)),
			warmSlowestSearchesMs: [...warmLatencies].sort((a, b) => b - a).slice(0, 5).map((value) => round(value)),
			warmSlowestSearchPositions: slowestPositions(warmLatencies, 5),
			serverLongestLoopDelayDuringWarmSearchesMs: loopDelayDuringWarmSearches,
			sustainedSearchP50Ms: round(percentile(sustainedLatencies, 50)),
			sustainedSearchP99Ms: round(percentile(sustainedLatencies, 99)),
			sustainedSlowestSearchesMs: [...sustainedLatencies].sort((a, b) => b - a).slice(0, 12).map((value) => round(value)),
			floorSearchP50Ms: round(percentile(floorLatencies, 50)),
			floorSearchP99Ms: round(percentile(floorLatencies, 99)),
			serverCpuPerWarmSearchMs: warmCpu,
			serverCpuPerFloorSearchMs: floorCpu,
			firstSearchAfterIngestionMs: round(firstAfterIngestion),
			indexBuildsAfterFirstSearchS: round(builds.ms / 1000),
			serverLongestLoopDelayDuringFirstSearchMs: loopDelayDuringFirstSearch,
			serverLongestLoopDelayDuringBuildsMs: builds.longestLoopDelayMs,
			firstSearchAfterRestartMs: round(firstAfterRestart),
			serverRssMiB: memory.rssMiB,
			serverPeakRssMiB: Math.max(peakDuringIngestion, peakDuringFirstSearchAndBuilds, peakDuringSearches),
			serverPeakRssDuring: { ingestionMiB: peakDuringIngestion, firstSearchAndBuildsMiB: peakDuringFirstSearchAndBuilds, searchesMiB: peakDuringSearches },
			serverRssAfterRestartMiB: memoryAfterRestart.rssMiB,
			workerPeakRssDuringIngestionMiB: workerPeakDuringIngestion,
			healthzWorstMs: Math.max(healthDuringIngestion, healthDuringBuilds, healthDuringSearch, healthAfterRestart),
			healthzWorstDuring: { ingestionMs: healthDuringIngestion, firstSearchAndBuildsMs: healthDuringBuilds, searchesMs: healthDuringSearch, restartAndFirstSearchMs: healthAfterRestart },
		};
		rows.push(row);
		log(JSON.stringify(row));
	}

	log("");
	log("| chunks | ingestion MB/s | first search after ingestion ms | index builds after it s | search p50 ms | search p99 ms | warm p50 / p99 ms | sustained p50 / p99 ms | floor p50 / p99 ms | first search after restart ms | server RSS MiB (peak) | worker peak RSS MiB | /healthz worst ms |");
	log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
	for (const row of rows as { [key: string]: number }[]) {
		log(
			`| ${row.chunks.toLocaleString("en")} | ${row.ingestionMBps} | ${row.firstSearchAfterIngestionMs} | ${row.indexBuildsAfterFirstSearchS} | ${row.searchP50Ms} | ${row.searchP99Ms} | ${row.warmSearchP50Ms} / ${row.warmSearchP99Ms} | ${row.sustainedSearchP50Ms} / ${row.sustainedSearchP99Ms} | ${row.floorSearchP50Ms} / ${row.floorSearchP99Ms} | ${row.firstSearchAfterRestartMs} | ${row.serverRssMiB} (${row.serverPeakRssMiB}) | ${row.workerPeakRssDuringIngestionMiB ?? "-"} | ${row.healthzWorstMs} |`,
		);
	}
	await writeFile(
		new URL("./results/knowledge-scale.json", import.meta.url),
		`${JSON.stringify({ ...run, machine, rows }, null, 2)}\n`,
	);
} finally {
	if (TIMELINE) await appendFile(TIMELINE, timeline.map((line) => `${line}\n`).join(""));
	await health.stop();
	if (server) await stopServer(server);
	await pool.end();
	if (!KEEP) {
		await database.drop();
		await rm(dataDirectory, { recursive: true, force: true });
	}
}
