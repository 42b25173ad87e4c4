/**
 * npm run bench:runtime — what the runtime adds on top of a model provider, no network.
 *
 * An instant local stand-in answers OpenAI's /v1/chat/completions (JSON and SSE). The same
 * keep-alive HTTP client (undici) then calls it directly, through POST /runtime/execute, through the
 * OpenAI-compatible POST /v1/chat/completions (the same generation in OpenAI's wire format), and through
 * POST /runtime/assistants/:slug, at concurrency 1 and 32: p50/p99 latency, requests/s, and the
 * added latency (p50 through us minus p50 direct). A bare keep-alive proxy (bench/bare-proxy.ts)
 * is measured too: the floor any gateway process pays. Streams: time to first delta, direct vs
 * the bare proxy vs /runtime/stream. Portkey's gateway (npx @portkey-ai/gateway@1.15.2) is measured as a peer when
 * it can be started; otherwise it is skipped. Targets: added p50 <= 1.5 ms at c=1, <= 5 ms at c=32.
 *
 * The platform and the bare proxy run in child processes, bundled as `npm start` runs the server
 * (bench/runtime-server.ts, bench/bare-proxy.ts); client and stand-in share this one. The table
 * also gives each serving process's CPU time per request, steadier than latency on a shared machine.
 * Targets are measured in BENCH_ROUNDS (5) interleaved rounds, so a burst of outside load hits
 * them alike; medians of the rounds are reported.
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database is created and dropped). Results: bench/results/runtime.json.
 *
 * Observability: `/runtime/execute` is served by three processes of the same build, measured in the same rounds:
 * metrics on (METRICS_PORT, as every other platform target here), metrics off (neither METRICS_PORT nor
 * METRICS_TOKEN: nothing recorded, as before metrics existed), and metrics on with OpenTelemetry exporting spans to
 * a local OTLP receiver that answers 200. BENCH_RESULTS_FILE writes the results there (also under BENCH_ONLY).
 *
 * Tool loop: the assistant `bench-tools` offers one knowledge_search tool (over an empty source);
 * the stand-in asks for it once, then answers. Its server CPU per request minus the plain
 * assistant's is what one tool step (a second model call, the search, the loop) adds.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createAssistant } from "../server/modules/assistants/create-assistant";
import { createKnowledgeSource } from "../server/modules/knowledge/create-knowledge-source";
import { createAssistantVersion } from "../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../server/modules/assistants/update-assistant-draft";
import { createUseCaseContext } from "../server/modules/platform-services";
import { parseEgressAllowList } from "../server/egress/allow-list";
import { createPlatformServices } from "../server/platform";
import { OPERATOR } from "../server/shared/principal";
import { setProviderCredential } from "../server/modules/provider-credentials/set-provider-credential";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { createInterface } from "node:readline";
import { describeRun } from "./run-record";
import { Pool } from "undici";
import { createLogger } from "../server/shared/logger";
import { createTestDatabase } from "../test/helpers/database";
import { buildBundles } from "../scripts/build";

const git = (args: string[]) => {
	try {
		return execFileSync("git", args, { encoding: "utf8" }).trim();
	} catch {
		return "";
	}
};
const SECRET_KEY = "bench-secret-key-0123456789abcdef0123456789";
const REQUESTS = { 1: Number(process.env.BENCH_REQUESTS_C1 ?? 2000), 32: Number(process.env.BENCH_REQUESTS_C32 ?? 20000) } as const;
const WARMUP_REQUESTS = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** BENCH_ONLY="direct,/runtime/execute": measure just these targets (for profiling one path). */
const only = process.env.BENCH_ONLY?.split(",");
const PORTKEY_PORT = Number(process.env.BENCH_PORTKEY_PORT ?? 8787);
const log = (message: string) => process.stdout.write(`${message}\n`);

// --- the instant provider stand-in -------------------------------------------------------------
const COMPLETION = JSON.stringify({
	id: "chatcmpl-bench",
	object: "chat.completion",
	created: 0,
	model: "gpt-4o-mini",
	choices: [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop", logprobs: null }],
	usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
});
const chunk = (delta: object, finish: string | null, extra: object = {}) =>
	`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const STREAM =
	chunk({ role: "assistant", content: "Hel" }, null) +
	chunk({ content: "lo!" }, null) +
	chunk({}, "stop") +
	`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } })}\n\n` +
	"data: [DONE]\n\n";

/** The tool loop's first model call: one knowledge_search call. */
const TOOL_CALL_COMPLETION = JSON.stringify({
	id: "chatcmpl-bench",
	object: "chat.completion",
	created: 0,
	model: "gpt-4o-mini",
	choices: [
		{
			index: 0,
			message: { role: "assistant", content: null, tool_calls: [{ id: "call_bench", type: "function", function: { name: "search_docs", arguments: '{"query":"hello"}' } }] },
			finish_reason: "tool_calls",
			logprobs: null,
		},
	],
	usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

const standIn = http.createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on("data", (data: Buffer) => chunks.push(data));
	request.on("end", () => {
		const body = Buffer.concat(chunks);
		const streamed = body.includes('"stream":true');
		if (body.includes('"tools":') && !body.includes('"role":"tool"')) {
			response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(TOOL_CALL_COMPLETION) });
			response.end(TOOL_CALL_COMPLETION);
		} else if (streamed) {
			response.writeHead(200, { "content-type": "text/event-stream" });
			response.end(STREAM);
		} else {
			response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(COMPLETION) });
			response.end(COMPLETION);
		}
	});
});
standIn.keepAliveTimeout = 65_000;
standIn.listen(0, "127.0.0.1");
await once(standIn, "listening");
const standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;

// --- the client: node:http with keep-alive, the same for every target ----------------------------
interface Target {
	name: string;
	url: string;
	headers: Record<string, string>;
	body: string;
	/** The process (or, for Portkey started through npx, the process group) serving it, whose CPU time is measured. */
	serverProcess?: { pid: number } | { group: number };
	/** For streams: the text whose arrival counts as the first delta. */
	firstDeltaMarker?: string;
}

/** CPU time (user + system) in ms used so far by a process or a whole process group, from /proc. */
function cpuMsOf(serverProcess: NonNullable<Target["serverProcess"]>): number {
	const ticksPerSecond = 100; // USER_HZ on Linux
	const statOf = (pid: string) => {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			// Fields after the command name (which may contain spaces): state is field 3, pgrp 5, utime 14, stime 15.
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			return { group: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) };
		} catch {
			return null; // exited meanwhile
		}
	};
	let ticks = 0;
	if ("pid" in serverProcess) ticks = statOf(String(serverProcess.pid))?.ticks ?? 0;
	else for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
		const stat = statOf(pid);
		if (stat?.group === serverProcess.group) ticks += stat.ticks;
	}
	return (ticks * 1000) / ticksPerSecond;
}

/**
 * One request through a keep-alive undici Pool (one per target and round, `concurrency`
 * connections). undici rather than node:http for the client: the client and the stand-in share one
 * core with whatever else the machine does, and a lighter client leaves more of the machine to the
 * targets being measured; every target, the direct baseline included, gets the same client.
 */
async function send(pool: Pool, path: string, target: Target, untilFirstByteOf?: string): Promise<{ total: number; firstDelta: number | null; status: number }> {
	const started = performance.now();
	const response = await pool.request({ path, method: "POST", headers: { "content-type": "application/json", ...target.headers }, body: target.body });
	let firstDelta: number | null = null;
	if (untilFirstByteOf) {
		let seen = "";
		for await (const data of response.body) {
			if (firstDelta !== null) continue;
			seen += (data as Buffer).toString("utf8");
			if (seen.includes(untilFirstByteOf)) firstDelta = performance.now() - started;
		}
	} else {
		await response.body.dump({ limit: Number.POSITIVE_INFINITY });
	}
	return { total: performance.now() - started, firstDelta, status: response.statusCode };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (value: number) => Math.round(value * 1000) / 1000;

interface Round {
	latencies: number[];
	firstDeltas: number[];
	failures: number;
	seconds: number;
	cpuMs: number | null;
}

/** One round: `count` requests from `concurrency` keep-alive clients, after `warmup` sequential ones. */
async function measureRound(target: Target, concurrency: number, count: number, warmup: number): Promise<Round> {
	const firstDeltaMarker = target.firstDeltaMarker;
	const url = new URL(target.url);
	const pool = new Pool(url.origin, { connections: concurrency });
	for (let index = 0; index < warmup; index++) await send(pool, url.pathname, target, firstDeltaMarker);
	const round: Round = { latencies: [], firstDeltas: [], failures: 0, seconds: 0, cpuMs: null };
	let next = 0;
	const cpuBefore = target.serverProcess ? cpuMsOf(target.serverProcess) : null;
	const started = performance.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				next += 1;
				const result = await send(pool, url.pathname, target, firstDeltaMarker);
				if (result.status !== 200) round.failures += 1;
				round.latencies.push(result.total);
				if (result.firstDelta !== null) round.firstDeltas.push(result.firstDelta);
			}
		}),
	);
	round.seconds = (performance.now() - started) / 1000;
	if (target.serverProcess && cpuBefore !== null) round.cpuMs = cpuMsOf(target.serverProcess) - cpuBefore;
	await pool.close();
	return round;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Every target is measured in ROUNDS rounds, interleaved (round 1 of each target, then round 2 of
 * each in reverse order...), so a burst of load from elsewhere on this shared machine hits all targets alike rather
 * than one. Per target: p50 and req/s are the medians of the rounds, p99 is over all requests, CPU
 * per request is the median of the rounds.
 */
async function measureInterleaved(targets: Target[], concurrency: 1 | 32, total: number) {
	const perRound = Math.ceil(total / ROUNDS);
	const rounds = new Map<Target, Round[]>(targets.map((target) => [target, []]));
	for (let index = 0; index < ROUNDS; index++) {
		// Every other round in reverse, so no target always follows the same one (the one before can leave the machine's caches, or its exports, behind).
		for (const target of index % 2 === 0 ? targets : [...targets].reverse()) {
			rounds.get(target)?.push(await measureRound(target, concurrency, perRound, index === 0 ? Math.min(WARMUP_REQUESTS, total) : 0));
		}
	}
	return targets.map((target) => {
		const measured = rounds.get(target) ?? [];
		const sortedP50 = measured.map((round) => percentile([...round.latencies].sort((a, b) => a - b), 50));
		const all = measured.flatMap((round) => round.latencies).sort((a, b) => a - b);
		const firstDeltas = measured.flatMap((round) => round.firstDeltas).sort((a, b) => a - b);
		const cpu = measured.filter((round) => round.cpuMs !== null).map((round) => ((round.cpuMs as number) * 1000) / round.latencies.length);
		log(`measured ${target.name} at c=${concurrency}`);
		return {
			target: target.name,
			concurrency,
			requests: all.length,
			rounds: measured.length,
			failures: measured.reduce((sum, round) => sum + round.failures, 0),
			p50Ms: round(median(sortedP50)),
			p99Ms: round(percentile(all, 99)),
			requestsPerSecond: Math.round(median(measured.map((round) => round.latencies.length / round.seconds))),
			// The serving process's CPU per request: steadier than latency on a shared machine.
			serverCpuUsPerRequest: cpu.length > 0 ? Math.round(median(cpu)) : null,
			...(firstDeltas.length > 0
				? { firstDeltaP50Ms: round(median(measured.map((r) => percentile([...r.firstDeltas].sort((a, b) => a - b), 50)))), firstDeltaP99Ms: round(percentile(firstDeltas, 99)) }
				: {}),
		};
	});
}

// --- Portkey, if it starts -------------------------------------------------------------------------
async function startPortkey(): Promise<ChildProcess | null> {
	if (process.env.BENCH_SKIP_PORTKEY) return null;
	const child = spawn("npx", ["--yes", "@portkey-ai/gateway@1.15.2", "--headless", `--port=${PORTKEY_PORT}`], { stdio: "ignore", detached: true });
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline && child.exitCode === null) {
		try {
			const response = await fetch(`http://127.0.0.1:${PORTKEY_PORT}/v1/chat/completions`, {
				method: "POST",
				headers: { "content-type": "application/json", "x-portkey-provider": "openai", "x-portkey-custom-host": `${standInUrl}/v1`, authorization: "Bearer sk-bench" },
				body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
			});
			if (response.ok) return child;
		} catch {
			// not up yet
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	stopPortkey(child);
	return null;
}

function stopPortkey(child: ChildProcess | null) {
	if (child?.pid && child.exitCode === null) {
		try {
			process.kill(-child.pid, "SIGTERM");
		} catch {
			// already gone
		}
	}
}

// --- the run ----------------------------------------------------------------------------------------
if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
// The bench's own handle on the platform's database and services, as the operator CLI has (the data is set up through the use cases).
const operatorServices = await createPlatformServices(
	// The provider stand-in is on loopback: the credential's base URL must pass the egress policy.
	{ databaseUrl: database.url, secretKey: SECRET_KEY, publicBaseUrl: () => "", logger: createLogger("silent"), egress: { allowList: parseEgressAllowList("127.0.0.1") } },
	"cli",
);
const operator = () => createUseCaseContext(operatorServices.services, OPERATOR);
// The platform runs as production does: bundled ahead (npm run build), not through tsx.
await buildBundles({ "runtime-server": "bench/runtime-server.ts", "bare-proxy": "bench/bare-proxy.ts" }, "dist/bench");
const profileFlags = process.env.BENCH_SERVER_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE_DIR}`] : [];
// Metrics are recorded only where they can be read: the platform as measured serves them on a port of its own
// (METRICS_PORT=0, nobody scrapes during the run, as between two of Prometheus's scrapes); a second server without
// METRICS_PORT records none, as the code before metrics did, and reads their cost per request.
const serverEnv = (metrics: boolean, extra: Record<string, string> = {}) => {
	const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, SECRET_KEY, LOG_LEVEL: "error" };
	delete env.METRICS_PORT;
	delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
	return { ...env, ...(metrics ? { METRICS_PORT: "0" } : {}), ...extra };
};
const server = spawn(process.execPath, [...profileFlags, "dist/bench/runtime-server.js"], { env: serverEnv(true), stdio: ["ignore", "pipe", "inherit"] });
const readUrl = async (child: ChildProcess) =>
	(JSON.parse(((await once(createInterface({ input: child.stdout as NonNullable<typeof child.stdout> }), "line")) as [string])[0]) as { url: string }).url;
const platform = { url: await readUrl(server) };
const metricsOffServer = spawn(process.execPath, [...profileFlags, "dist/bench/runtime-server.js"], { env: serverEnv(false), stdio: ["ignore", "pipe", "inherit"] });
const metricsOffUrl = await readUrl(metricsOffServer);
// BENCH_BASELINE=<a checkout of the commit to compare with>: its server, bundled the same way, measured as one more
// target on the same database, so a change's cost per request is read against the code before it in one run.
const baselineCheckout = process.env.BENCH_BASELINE;
if (baselineCheckout) await buildBundles({ "runtime-server": join(baselineCheckout, "bench", "runtime-server.ts") }, "dist/bench/baseline");
const baselineServer = baselineCheckout
	? spawn(process.execPath, ["dist/bench/baseline/runtime-server.js"], { env: serverEnv(true), stdio: ["ignore", "pipe", "inherit"] })
	: null;
const baselineUrl = baselineServer ? await readUrl(baselineServer) : null;
// The same server exporting OpenTelemetry spans (OTLP/HTTP) to a local receiver that accepts and drops them.
// It counts the spans it receives, so a run shows whether the exporter kept up or dropped spans (which would cost less).
const otlpReceived = { exports: 0, spans: 0 };
const otlpReceiver = http.createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on("data", (data: Buffer) => chunks.push(data));
	request.on("end", () => {
		const body = Buffer.concat(chunks).toString("utf8");
		otlpReceived.exports += 1;
		for (let at = body.indexOf('"spanId"'); at !== -1; at = body.indexOf('"spanId"', at + 1)) otlpReceived.spans += 1;
		response.end("{}");
	});
});
otlpReceiver.listen(0, "127.0.0.1");
await once(otlpReceiver, "listening");
const tracedServer = spawn(process.execPath, [...profileFlags, "dist/bench/runtime-server.js"], {
	env: serverEnv(true, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlpReceiver.address() as AddressInfo).port}` }),
	stdio: ["ignore", "pipe", "inherit"],
});
const tracedUrl = await readUrl(tracedServer);
const bareProxy = spawn(process.execPath, ["dist/bench/bare-proxy.js"], {
	env: { ...process.env, UPSTREAM_URL: `${standInUrl}/v1/chat/completions` },
	stdio: ["ignore", "pipe", "inherit"],
});
const bareProxyUrl = await readUrl(bareProxy);
let portkey: ChildProcess | null = null;
const results: Record<string, unknown> = {
	...describeRun({ rateLimitPerMinute: 0, rounds: ROUNDS, requests: REQUESTS, only: only ?? "all", serverBundled: true, logLevel: "error" }),
	standIn: "instant local OpenAI stand-in",
};
try {
	const setup = await bootstrapInstallation(operator(), { organization: "Bench", workspace: "Bench", email: "bench@example.com", password: "bench password 123" });
	await setProviderCredential(operator(), { workspaceId: setup.workspaceId, provider: "openai", apiKey: "sk-bench", baseUrl: `${standInUrl}/v1` });
	await createAssistant(operator(), { workspaceId: setup.workspaceId, slug: "bench-bot", name: "Bench" });
	await updateAssistantDraft(operator(), {
		workspaceId: setup.workspaceId,
		slug: "bench-bot",
		patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: "You help {{name}}.", variables: [{ name: "name", type: "string", required: true }], generation: {} },
	});
	await createAssistantVersion(operator(), { workspaceId: setup.workspaceId, slug: "bench-bot" });
	await publishAssistantVersion(operator(), { workspaceId: setup.workspaceId, slug: "bench-bot", version: 1 });
	const source = await createKnowledgeSource(operator(), { workspaceId: setup.workspaceId, name: "Bench docs", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });
	await createAssistant(operator(), { workspaceId: setup.workspaceId, slug: "bench-tools", name: "Bench tools" });
	await updateAssistantDraft(operator(), {
		workspaceId: setup.workspaceId,
		slug: "bench-tools",
		patch: {
			provider: "openai",
			model: "gpt-4o-mini",
			systemPrompt: "You help {{name}}.",
			variables: [{ name: "name", type: "string", required: true }],
			generation: {},
			tools: [{ type: "knowledge_search", name: "search_docs", description: "Searches the docs", sourceIds: [source.id] }],
		},
	});
	await createAssistantVersion(operator(), { workspaceId: setup.workspaceId, slug: "bench-tools" });
	await publishAssistantVersion(operator(), { workspaceId: setup.workspaceId, slug: "bench-tools", version: 1 });

	const messages = [{ role: "user", content: "Say hello." }];
	const auth = { authorization: `Bearer ${setup.apiKey}` };
	const direct: Target = { name: "direct", url: `${standInUrl}/v1/chat/completions`, headers: { authorization: "Bearer sk-bench" }, body: JSON.stringify({ model: "gpt-4o-mini", messages }) };
	const execute: Target = { name: "/runtime/execute", url: `${platform.url}/runtime/execute`, headers: auth, body: JSON.stringify({ providerName: "openai", model: "gpt-4o-mini", messages }), serverProcess: { pid: server.pid as number } };
	const assistant: Target = { name: "/runtime/assistants/:slug", url: `${platform.url}/runtime/assistants/bench-bot`, headers: auth, body: JSON.stringify({ input: "Say hello.", variables: { name: "Ada" } }), serverProcess: { pid: server.pid as number } };
	const toolLoop: Target = { ...assistant, name: "tool loop (1 knowledge_search step)", url: `${platform.url}/runtime/assistants/bench-tools` };
	const openAiCompatible: Target = { ...execute, name: "/v1/chat/completions", url: `${platform.url}/v1/chat/completions`, body: JSON.stringify({ model: "openai/gpt-4o-mini", messages }) };
	const bare: Target = { ...direct, name: "bare proxy", url: bareProxyUrl, serverProcess: { pid: bareProxy.pid as number } };
	const directStream: Target = { ...direct, name: "direct stream", body: JSON.stringify({ model: "gpt-4o-mini", messages, stream: true, stream_options: { include_usage: true } }), firstDeltaMarker: "data: " };
	const bareStream: Target = { ...directStream, name: "bare proxy stream", url: bareProxyUrl, serverProcess: { pid: bareProxy.pid as number } };
	const runtimeStream: Target = { ...execute, name: "/runtime/stream", url: `${platform.url}/runtime/stream`, firstDeltaMarker: "event: delta" };
	const metricsOffExecute: Target = { ...execute, name: "/runtime/execute (metrics off)", url: `${metricsOffUrl}/runtime/execute`, serverProcess: { pid: metricsOffServer.pid as number } };
	const tracedExecute: Target = { ...execute, name: "/runtime/execute (OpenTelemetry)", url: `${tracedUrl}/runtime/execute`, serverProcess: { pid: tracedServer.pid as number } };
	const baselineExecute: Target | null =
		baselineServer && baselineUrl ? { ...execute, name: "/runtime/execute (baseline)", url: `${baselineUrl}/runtime/execute`, serverProcess: { pid: baselineServer.pid as number } } : null;

	log("starting Portkey gateway (npx @portkey-ai/gateway@1.15.2) ...");
	portkey = await startPortkey();
	const portkeyTarget: Target | null = portkey
		? {
				name: "portkey gateway",
				serverProcess: { group: portkey.pid as number },
				url: `http://127.0.0.1:${PORTKEY_PORT}/v1/chat/completions`,
				headers: { "x-portkey-provider": "openai", "x-portkey-custom-host": `${standInUrl}/v1`, authorization: "Bearer sk-bench" },
				body: direct.body,
			}
		: null;
	log(portkey ? "Portkey is up" : "Portkey unavailable: skipped");
	results.portkey = portkey ? "measured (non-streaming only: its streaming returns 500 on Node 20)" : "skipped (could not start)";

	const targets = [direct, bare, metricsOffExecute, execute, openAiCompatible, tracedExecute, ...(baselineExecute ? [baselineExecute] : []), assistant, toolLoop, ...(portkeyTarget ? [portkeyTarget] : [])].filter((target) => !only || only.includes(target.name));
	const runs = [...(await measureInterleaved(targets, 1, REQUESTS[1])), ...(await measureInterleaved(targets, 32, REQUESTS[32]))];
	const streams = await measureInterleaved([directStream, bareStream, runtimeStream], 1, REQUESTS[1]);

	const added = (name: string, concurrency: number) => {
		const base = runs.find((run) => run.target === "direct" && run.concurrency === concurrency);
		const run = runs.find((candidate) => candidate.target === name && candidate.concurrency === concurrency);
		return base && run ? round(run.p50Ms - base.p50Ms) : null;
	};
	const throughputRatio = (name: string, baseline: string) => {
		const run = runs.find((candidate) => candidate.target === name && candidate.concurrency === 32);
		const base = runs.find((candidate) => candidate.target === baseline && candidate.concurrency === 32);
		return run && base ? Math.round((run.requestsPerSecond / base.requestsPerSecond) * 100) / 100 : null;
	};
	const cpuRatio = (name: string, baseline: string) => {
		const run = runs.find((candidate) => candidate.target === name && candidate.concurrency === 32);
		const base = runs.find((candidate) => candidate.target === baseline && candidate.concurrency === 32);
		return run?.serverCpuUsPerRequest && base?.serverCpuUsPerRequest ? Math.round((run.serverCpuUsPerRequest / base.serverCpuUsPerRequest) * 100) / 100 : null;
	};
	const cpuAdded = (name: string, baseline: string) => {
		const run = runs.find((candidate) => candidate.target === name && candidate.concurrency === 32);
		const base = runs.find((candidate) => candidate.target === baseline && candidate.concurrency === 32);
		return run?.serverCpuUsPerRequest && base?.serverCpuUsPerRequest ? Math.round(run.serverCpuUsPerRequest - base.serverCpuUsPerRequest) : null;
	};
	// Two spans per request (the request's and its generation's) when none were dropped; the last batch may still be on its way.
	const tracedRequests = [...runs, ...streams].filter((run) => run.target === tracedExecute.name).reduce((sum, run) => sum + run.requests, 0);
	results.openTelemetry = { requestsMeasured: tracedRequests, warmupRequests: Math.min(WARMUP_REQUESTS, REQUESTS[1]) + Math.min(WARMUP_REQUESTS, REQUESTS[32]), ...otlpReceived };
	log(`OTLP receiver: ${otlpReceived.spans} spans in ${otlpReceived.exports} exports for ${tracedRequests} measured requests (plus warm-up)`);
	const table = runs.map((run) => ({ ...run, addedP50Ms: run.target === "direct" ? 0 : added(run.target, run.concurrency) }));
	results.runs = table;
	results.streams = streams.map((run) => ({ ...run, addedFirstDeltaP50Ms: round((run.firstDeltaP50Ms ?? 0) - (streams[0].firstDeltaP50Ms ?? 0)) }));
	results.targets = {
		"added p50 at c=1 (execute)": { valueMs: added("/runtime/execute", 1), targetMs: 1.5 },
		"added p50 at c=32 (execute)": { valueMs: added("/runtime/execute", 32), targetMs: 5 },
		"added p50 at c=1 (assistant)": { valueMs: added("/runtime/assistants/:slug", 1), targetMs: 1.5 },
		"added p50 at c=32 (assistant)": { valueMs: added("/runtime/assistants/:slug", 32), targetMs: 5 },
		"added first delta p50 (stream)": { valueMs: (results.streams as { addedFirstDeltaP50Ms: number }[])[2].addedFirstDeltaP50Ms, targetMs: 2 },
		"throughput at c=32, execute / portkey": { ratio: throughputRatio("/runtime/execute", "portkey gateway"), target: 5 },
		"throughput at c=32, execute / bare proxy": { ratio: throughputRatio("/runtime/execute", "bare proxy"), target: null },
		// Steadier than throughput, which the client and stand-in sharing the same two cores also bound.
		"server CPU per request at c=32, portkey / execute": { ratio: cpuRatio("portkey gateway", "/runtime/execute"), target: null },
		"server CPU per request at c=32, execute / bare proxy": { ratio: cpuRatio("/runtime/execute", "bare proxy"), target: null },
		// What recording metrics costs: the same server with and without METRICS_PORT, in the same rounds.
		"server CPU per request at c=32, execute with metrics / without": { ratio: cpuRatio("/runtime/execute", metricsOffExecute.name), target: 1.05 },
		"server CPU per request at c=32, execute with metrics and OpenTelemetry / metrics alone": { ratio: cpuRatio(tracedExecute.name, "/runtime/execute"), target: null },
		"server CPU added by OpenTelemetry at c=32 (µs)": { valueUs: cpuAdded(tracedExecute.name, "/runtime/execute"), target: null },
		...(baselineExecute ? { "server CPU per request at c=32, execute / execute at BENCH_BASELINE": { ratio: cpuRatio("/runtime/execute", baselineExecute.name), target: 1.05 } } : {}),
		"server CPU per request at c=32, tool loop (1 step) / assistant": { ratio: cpuRatio(toolLoop.name, "/runtime/assistants/:slug"), target: null },
		"server CPU added per tool step at c=32 (µs)": { valueUs: cpuAdded(toolLoop.name, "/runtime/assistants/:slug"), target: null },
		// The same generation in OpenAI's wire format: within 10% of /runtime/execute.
		"server CPU per request at c=32, /v1/chat/completions / execute": { ratio: cpuRatio("/v1/chat/completions", "/runtime/execute"), target: 1.1 },
		"added p50 at c=32 (/v1/chat/completions)": { valueMs: added("/v1/chat/completions", 32), targetMs: 5 },
	};

	console.table(table.map((run) => ({ target: run.target, c: run.concurrency, "p50 ms": run.p50Ms, "p99 ms": run.p99Ms, "req/s": run.requestsPerSecond, "added p50 ms": run.addedP50Ms, "server CPU µs/req": run.serverCpuUsPerRequest, failures: run.failures })));
	console.table((results.streams as typeof streams).map((run) => ({ target: run.target, "first delta p50 ms": run.firstDeltaP50Ms, "first delta p99 ms": run.firstDeltaP99Ms, "total p50 ms": run.p50Ms, "server CPU µs/req": run.serverCpuUsPerRequest, failures: run.failures })));
	console.table(results.targets as object);
	if (!only || baselineExecute || process.env.BENCH_RESULTS_FILE) {
		// A comparison with BENCH_BASELINE (whatever BENCH_ONLY says) has a file of its own, as has a run naming BENCH_RESULTS_FILE.
		const file = process.env.BENCH_RESULTS_FILE ?? (baselineExecute ? "bench/results/runtime-baseline.json" : "bench/results/runtime.json");
		await mkdir("bench/results", { recursive: true });
		await writeFile(file, `${JSON.stringify({ ...results, baseline: baselineCheckout ? git(["-C", baselineCheckout, "rev-parse", "--short", "HEAD"]) : null }, null, 2)}\n`);
		log(`wrote ${file}`);
	}
} finally {
	stopPortkey(portkey);
	server.kill("SIGTERM");
	metricsOffServer.kill("SIGTERM");
	bareProxy.kill("SIGTERM");
	baselineServer?.kill("SIGTERM");
	tracedServer.kill("SIGTERM");
	await Promise.all([once(server, "exit"), once(metricsOffServer, "exit"), once(bareProxy, "exit"), once(tracedServer, "exit"), ...(baselineServer ? [once(baselineServer, "exit")] : [])]);
	otlpReceiver.close();
	await operatorServices.close();
	standIn.close();
	standIn.closeAllConnections();
	await database.drop();
}
