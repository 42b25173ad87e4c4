/**
 * npm run bench:soak [-- --minutes N] [--window-minutes W] [--rate R]: the platform (bundled, in its
 * own process, as `npm start` runs it) under a steady mixed load for N minutes (30 by default): plain
 * and streamed generations against an instant local provider stand-in, knowledge uploads (ingested
 * by the server's inline worker) and searches, and MCP tool calls over HTTP with an OAuth token.
 * Every W minutes (5) it reports the server's RSS and open file descriptors (from /proc), the
 * event loop's p99 lag (from its own /metrics, read once per window), p50/p99 latency, requests and
 * 5xx. Leaks show as a rising line: the verdict compares the last window with the second (the
 * first includes warm-up) within stated tolerances, and any 5xx fails the run. Writes
 * bench/results/soak.json.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { parseEgressAllowList } from "../server/egress/allow-list";
import { createUseCaseContext } from "../server/modules/platform-services";
import { setProviderCredential } from "../server/modules/provider-credentials/set-provider-credential";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { createPlatformServices } from "../server/platform";
import { createLogger } from "../server/shared/logger";
import { OPERATOR } from "../server/shared/principal";
import { buildBundles, SERVER_ENTRY_POINTS } from "../scripts/build";
import { createTestDatabase } from "../test/helpers/database";
import { callMcp, connectMcpClient } from "../test/helpers/oauth-flow";
import { describeRun } from "./run-record";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "30" }, "window-minutes": { type: "string", default: "5" }, rate: { type: "string", default: "20" } } });
const MINUTES = Number(values.minutes);
const WINDOW_MS = Math.min(Number(values["window-minutes"]), MINUTES) * 60_000;
const RATE = Number(values.rate);
const MAX_IN_FLIGHT = 64;
/** Flat means: RSS within +15% and open descriptors within +20 of the second window, p99 within 2x of it. */
const TOLERANCE = { rssGrowth: 0.15, descriptorGrowth: 20, p99Ratio: 2 };
const SECRET_KEY = "bench-secret-key-0123456789abcdef0123456789";
const PASSWORD = "soak password 123";

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);

// --- an instant OpenAI stand-in ----------------------------------------------------------------------
const COMPLETION = JSON.stringify({
	id: "chatcmpl-soak",
	object: "chat.completion",
	created: 0,
	model: "gpt-4o-mini",
	choices: [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop", logprobs: null }],
	usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
});
const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: "chatcmpl-soak", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const STREAM = `${chunk({ role: "assistant", content: "Hel" }, null)}${chunk({ content: "lo!" }, null)}${chunk({}, "stop")}data: ${JSON.stringify({ id: "chatcmpl-soak", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } })}\n\ndata: [DONE]\n\n`;
const standIn = http.createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on("data", (data: Buffer) => chunks.push(data));
	request.on("end", () => {
		if (Buffer.concat(chunks).includes('"stream":true')) {
			response.writeHead(200, { "content-type": "text/event-stream" });
			response.end(STREAM);
		} else {
			response.writeHead(200, { "content-type": "application/json" });
			response.end(COMPLETION);
		}
	});
});
standIn.listen(0, "127.0.0.1");
await once(standIn, "listening");
const standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;

// --- the platform, bundled, in its own process ---------------------------------------------------------
if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
const operatorServices = await createPlatformServices(
	{ databaseUrl: database.url, secretKey: SECRET_KEY, publicBaseUrl: () => "", logger: createLogger("silent"), egress: { allowList: parseEgressAllowList("127.0.0.1") } },
	"cli",
);
// The parser processes and index threads are forked from beside the bundle, as in dist/.
await buildBundles({ "runtime-server": "bench/runtime-server.ts", parser: SERVER_ENTRY_POINTS.parser, "index-builder": SERVER_ENTRY_POINTS["index-builder"], "body-thread": SERVER_ENTRY_POINTS["body-thread"] }, "dist/bench");
const server: ChildProcess = spawn(process.execPath, ["dist/bench/runtime-server.js"], {
	env: { ...process.env, DATABASE_URL: database.url, SECRET_KEY, LOG_LEVEL: "error", METRICS_PORT: "0" },
	stdio: ["ignore", "pipe", "inherit"],
});
const handshake = JSON.parse(((await once(createInterface({ input: server.stdout as NonNullable<typeof server.stdout> }), "line")) as [string])[0]) as { url: string; metricsUrl: string };
const base = handshake.url;

interface WindowStats {
	window: number;
	endMinute: number;
	requests: number;
	byOperation: Record<string, number>;
	status5xx: number;
	otherFailures: number;
	p50Ms: number;
	p99Ms: number;
	rssMb: number;
	openDescriptors: number;
	eventLoopLagP99Ms: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
const round = (value: number) => Math.round(value * 100) / 100;
const rssMbOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const descriptorsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
async function eventLoopLagP99Ms(): Promise<number> {
	// prom-client resets its event-loop histogram at each scrape: one scrape per window reads that window.
	const text = await (await fetch(handshake.metricsUrl)).text();
	return round(Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1] ?? Number.NaN) * 1000);
}

const results: Record<string, unknown> = { ...describeRun({ minutes: MINUTES, windowMinutes: WINDOW_MS / 60_000, ratePerSecond: RATE, serverBundled: true }), tolerance: TOLERANCE };
try {
	const setup = await bootstrapInstallation(createUseCaseContext(operatorServices.services, OPERATOR), { organization: "Soak", workspace: "Soak", email: "soak@example.com", password: PASSWORD });
	await setProviderCredential(createUseCaseContext(operatorServices.services, OPERATOR), { workspaceId: setup.workspaceId, provider: "openai", apiKey: "sk-soak", baseUrl: `${standInUrl}/v1` });
	const auth = { authorization: `Bearer ${setup.apiKey}`, "content-type": "application/json" };
	const source = (await (
		await fetch(`${base}/knowledge/sources`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Soak", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } }) })
	).json()) as { id: string };
	let mcp = await connectMcpClient(base, { email: "soak@example.com", password: PASSWORD });
	const messages = [{ role: "user", content: "Say hello." }];
	let uploads = 0;

	/** One request of the mix; resolves with its HTTP status (0: no answer). */
	const operations: [name: string, weight: number, run: () => Promise<number>][] = [
		["plain", 45, async () => (await fetch(`${base}/runtime/execute`, { method: "POST", headers: auth, body: JSON.stringify({ providerName: "openai", model: "gpt-4o-mini", messages }) }).then(async (r) => (await r.arrayBuffer(), r.status)))],
		["stream", 25, async () => (await fetch(`${base}/runtime/stream`, { method: "POST", headers: auth, body: JSON.stringify({ providerName: "openai", model: "gpt-4o-mini", messages }) }).then(async (r) => (await r.arrayBuffer(), r.status)))],
		["search", 18, async () => (await fetch(`${base}/knowledge/sources/${source.id}/search?query=${encodeURIComponent("turbine blade inspection")}`, { headers: auth }).then(async (r) => (await r.arrayBuffer(), r.status)))],
		[
			"mcp",
			10,
			async () => {
				let response = await callMcp(base, mcp.accessToken, "tools/call", { name: "search_knowledge", arguments: { workspaceId: setup.workspaceId, sourceId: source.id, query: "turbine" } });
				if (response.status === 401) {
					mcp = await connectMcpClient(base, { email: "soak@example.com", password: PASSWORD });
					response = await callMcp(base, mcp.accessToken, "tools/call", { name: "search_knowledge", arguments: { workspaceId: setup.workspaceId, sourceId: source.id, query: "turbine" } });
				}
				await response.arrayBuffer();
				return response.status;
			},
		],
		[
			"upload",
			2,
			async () => {
				uploads += 1;
				const content = `# Report ${uploads}\n\nThe turbine blade inspection number ${uploads} found wear on the leading edge.\n`;
				const response = await fetch(`${base}/knowledge/sources/${source.id}/documents/upload`, {
					method: "POST",
					headers: auth,
					body: JSON.stringify({ filename: `report-${uploads}.md`, contentBase64: Buffer.from(content).toString("base64") }),
				});
				await response.arrayBuffer();
				return response.status;
			},
		],
	];
	const totalWeight = operations.reduce((sum, [, weight]) => sum + weight, 0);
	const pick = () => {
		let roll = Math.random() * totalWeight;
		for (const operation of operations) if ((roll -= operation[1]) < 0) return operation;
		return operations[0];
	};

	const windows: WindowStats[] = [];
	let current = { latencies: [] as number[], byOperation: {} as Record<string, number>, status5xx: 0, otherFailures: 0 };
	let inFlight = 0;
	const started = Date.now();
	const deadline = started + MINUTES * 60_000;
	log(`soak: ${MINUTES} min at ${RATE} req/s, windows of ${WINDOW_MS / 60_000} min, server pid ${server.pid}`);
	await eventLoopLagP99Ms();
	let nextWindowAt = started + WINDOW_MS;
	const ticker = setInterval(() => {
		if (inFlight >= MAX_IN_FLIGHT) return void (current.otherFailures += 1);
		const [name, , run] = pick();
		const sentAt = performance.now();
		const window = current;
		inFlight += 1;
		run()
			.then((status) => {
				window.latencies.push(performance.now() - sentAt);
				window.byOperation[name] = (window.byOperation[name] ?? 0) + 1;
				if (status >= 500) window.status5xx += 1;
				else if (status >= 400 || status === 0) window.otherFailures += 1;
			})
			.catch(() => (window.otherFailures += 1))
			.finally(() => (inFlight -= 1));
	}, 1000 / RATE);
	while (Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(nextWindowAt, deadline) - Date.now())));
		const closing = current;
		current = { latencies: [], byOperation: {}, status5xx: 0, otherFailures: 0 };
		const sorted = closing.latencies.sort((a, b) => a - b);
		const stats: WindowStats = {
			window: windows.length + 1,
			endMinute: round((Date.now() - started) / 60_000),
			requests: sorted.length,
			byOperation: closing.byOperation,
			status5xx: closing.status5xx,
			otherFailures: closing.otherFailures,
			p50Ms: round(percentile(sorted, 50)),
			p99Ms: round(percentile(sorted, 99)),
			rssMb: round(rssMbOf(server.pid as number)),
			openDescriptors: descriptorsOf(server.pid as number),
			eventLoopLagP99Ms: await eventLoopLagP99Ms(),
		};
		windows.push(stats);
		log(JSON.stringify(stats));
		nextWindowAt += WINDOW_MS;
	}
	clearInterval(ticker);
	while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));

	const reference = windows[Math.min(1, windows.length - 1)];
	const last = windows[windows.length - 1];
	const verdict = {
		rssGrowth: round((last.rssMb - reference.rssMb) / reference.rssMb),
		descriptorGrowth: last.openDescriptors - reference.openDescriptors,
		p99Ratio: round(last.p99Ms / Math.max(reference.p99Ms, 0.01)),
		status5xx: windows.reduce((sum, window) => sum + window.status5xx, 0),
		documentsUploaded: uploads,
	};
	const flat = verdict.rssGrowth <= TOLERANCE.rssGrowth && verdict.descriptorGrowth <= TOLERANCE.descriptorGrowth && verdict.p99Ratio <= TOLERANCE.p99Ratio;
	results.windows = windows;
	results.verdict = { ...verdict, flat, zero5xx: verdict.status5xx === 0 };
	console.table(windows.map(({ byOperation: _, ...window }) => window));
	console.table([results.verdict]);
	await mkdir("bench/results", { recursive: true });
	await writeFile("bench/results/soak.json", `${JSON.stringify(results, null, 2)}\n`);
	log("wrote bench/results/soak.json");
	if (!flat || verdict.status5xx > 0) process.exitCode = 1;
} finally {
	server.kill("SIGTERM");
	await once(server, "exit");
	await operatorServices.close();
	standIn.close();
	standIn.closeAllConnections();
	await database.drop();
}
