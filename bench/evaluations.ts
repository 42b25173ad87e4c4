/**
 * npm run bench:evaluations — how long a 200-case evaluation run takes on an instant provider, no network.
 *
 * An instant local stand-in answers OpenAI's /v1/chat/completions: the assistant's answer, or a
 * grader's JSON verdict. The platform runs in a child process, bundled as `npm start` runs it, with
 * its evaluation worker inline (bench/runtime-server.ts). Per row: the wall time from
 * run_evaluation (the use case the MCP tool and the CLI call) until the run reads completed, and
 * cases/s. Baseline in the same run: 200 plain generations through POST /runtime/execute from a
 * keep-alive client at the same concurrency; the ratio is what scoring, storing results and the
 * queue add. Rows: exact_match + contains at the default concurrency (4) and at 16, and a rubric
 * scorer graded on the stand-in (two provider calls a case). Rows and baselines are measured in
 * BENCH_ROUNDS (3) interleaved rounds; medians are reported. Target: 200 cases in under 30 s.
 *
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database is created and dropped). Results: bench/results/evaluations.json.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { Pool } from "undici";
import { buildBundles } from "../scripts/build";
import { createAssistant } from "../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../server/modules/assistants/update-assistant-draft";
import { addEvaluationCase } from "../server/modules/evaluations/add-evaluation-case";
import { createEvaluationDataset } from "../server/modules/evaluations/create-evaluation-dataset";
import { startEvaluationRun } from "../server/modules/evaluations/start-evaluation-run";
import { createUseCaseContext } from "../server/modules/platform-services";
import { setProviderCredential } from "../server/modules/provider-credentials/set-provider-credential";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { parseEgressAllowList } from "../server/egress/allow-list";
import { createPlatformServices } from "../server/platform";
import { createLogger } from "../server/shared/logger";
import { OPERATOR } from "../server/shared/principal";
import { createTestDatabase } from "../test/helpers/database";
import { describeRun } from "./run-record";

const SECRET_KEY = "bench-secret-key-0123456789abcdef0123456789";
const CASES = Number(process.env.BENCH_CASES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_SECONDS = 30;
const GRADER_MODEL = "grader-model";
const log = (message: string) => process.stdout.write(`${message}\n`);

// --- the instant provider stand-in -------------------------------------------------------------
const completion = (model: string, content: string) =>
	JSON.stringify({
		id: "chatcmpl-bench",
		object: "chat.completion",
		created: 0,
		model,
		choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
		usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
	});
const ANSWER = completion("gpt-4o-mini", "Hello!");
const VERDICT = completion(GRADER_MODEL, JSON.stringify({ score: 0.9, reasoning: "Greets the user." }));
const standIn = http.createServer((request, response) => {
	const chunks: Buffer[] = [];
	request.on("data", (data: Buffer) => chunks.push(data));
	request.on("end", () => {
		const body = Buffer.concat(chunks).includes(`"model":"${GRADER_MODEL}"`) ? VERDICT : ANSWER;
		response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
		response.end(body);
	});
});
standIn.keepAliveTimeout = 65_000;
standIn.listen(0, "127.0.0.1");
await once(standIn, "listening");
const standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;

/** CPU time (user + system) in ms the serving process has used so far, from /proc (USER_HZ = 100). */
function serverCpuMs(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

// --- the run ----------------------------------------------------------------------------------------
if (!process.env.TEST_DATABASE_URL && process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const database = await createTestDatabase();
// The bench's own handle on the platform's database, as the operator CLI has: data is set up and runs are started through the use cases.
const operatorServices = await createPlatformServices(
	// The provider stand-in is on loopback: the credential's base URL must pass the egress policy.
	{ databaseUrl: database.url, secretKey: SECRET_KEY, publicBaseUrl: () => "", logger: createLogger("silent"), egress: { allowList: parseEgressAllowList("127.0.0.1") } },
	"cli",
);
const operator = () => createUseCaseContext(operatorServices.services, OPERATOR);
await buildBundles({ "runtime-server": "bench/runtime-server.ts" }, "dist/bench");
// BENCH_SERVER_PROFILE_DIR: the serving process writes a CPU profile there on exit (where a run's time goes).
const profileFlags = process.env.BENCH_SERVER_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE_DIR}`] : [];
const server = spawn(process.execPath, [...profileFlags, "dist/bench/runtime-server.js"], { env: { ...process.env, DATABASE_URL: database.url, SECRET_KEY, LOG_LEVEL: "error" }, stdio: ["ignore", "pipe", "inherit"] });
const platformUrl = (JSON.parse(((await once(createInterface({ input: server.stdout as NonNullable<typeof server.stdout> }), "line")) as [string])[0]) as { url: string }).url;

try {
	const setup = await bootstrapInstallation(operator(), { organization: "Bench", workspace: "Bench", email: "bench@example.com", password: "bench password 123" });
	const { workspaceId } = setup;
	await setProviderCredential(operator(), { workspaceId, provider: "openai", apiKey: "sk-bench", baseUrl: `${standInUrl}/v1` });
	await createAssistant(operator(), { workspaceId, slug: "bench-bot", name: "Bench" });
	await updateAssistantDraft(operator(), { workspaceId, slug: "bench-bot", patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: "You greet people.", generation: {} } });
	await createAssistantVersion(operator(), { workspaceId, slug: "bench-bot" });
	await publishAssistantVersion(operator(), { workspaceId, slug: "bench-bot", version: 1 });

	const datasetOf = async (name: string, scorers: unknown[]) => {
		const dataset = await createEvaluationDataset(operator(), { workspaceId, name });
		for (let index = 0; index < CASES; index += 1) await addEvaluationCase(operator(), { workspaceId, datasetId: dataset.id, input: `Greet visitor ${index}`, expectedOutput: "Hello!", scorers });
		return dataset.id;
	};
	log(`adding ${CASES} cases to each dataset ...`);
	const cheapDataset = await datasetOf("exact_match + contains", [{ type: "exact_match" }, { type: "contains", value: "Hello" }]);
	const rubricDataset = await datasetOf("rubric", [{ type: "rubric", criteria: "Greets the user.", provider: "openai", model: GRADER_MODEL, passThreshold: 0.7 }]);

	const connection = operatorServices.services.orm.em.fork().getConnection();
	/** From run_evaluation to the run reading completed (polled every 10 ms: a cheap status read, not the per-case results). */
	const timeRun = async (datasetId: string, concurrency: number) => {
		const started = performance.now();
		const cpuBefore = serverCpuMs(server.pid as number);
		const run = await startEvaluationRun(operator(), { workspaceId, datasetId, target: { kind: "version", assistantSlug: "bench-bot", version: 1 }, concurrency });
		for (;;) {
			const [row] = (await connection.execute(
				"select status, aggregates, extract(epoch from started_at - created_at) as queued_seconds, extract(epoch from finished_at - started_at) as working_seconds from evaluation_runs where id = ?",
				[run.id],
			)) as { status: string; aggregates: { passedCases: number; latencyMs: { p50: number } } | null; queued_seconds: string; working_seconds: string }[];
			if (row.status !== "queued" && row.status !== "running") {
				const seconds = (performance.now() - started) / 1000;
				if (row.status !== "completed" || row.aggregates?.passedCases !== CASES) throw new Error(`run ${run.id} ended ${row.status} with ${row.aggregates?.passedCases} of ${CASES} passed`);
				// Until a worker picks the job up: the dispatcher's poll interval when the run was started from another process.
				// Per case and lane: the generation (latency p50 in the aggregates) against the whole case (working time * concurrency / cases).
				return { seconds, serverCpuMsPerCase: (serverCpuMs(server.pid as number) - cpuBefore) / CASES, queuedSeconds: Number(row.queued_seconds), laneMsPerCase: (Number(row.working_seconds) * 1000 * concurrency) / CASES, generationP50Ms: row.aggregates.latencyMs.p50 };
			}
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	};
	/** CASES plain generations through POST /runtime/execute, `concurrency` at a time, over keep-alive connections. */
	const timeExecute = async (concurrency: number) => {
		const pool = new Pool(platformUrl, { connections: concurrency });
		const body = JSON.stringify({ providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "system", content: "You greet people." }, { role: "user", content: "Greet visitor 0" }] });
		const started = performance.now();
		const cpuBefore = serverCpuMs(server.pid as number);
		let next = 0;
		await Promise.all(
			Array.from({ length: concurrency }, async () => {
				while (next < CASES) {
					next += 1;
					const response = await pool.request({ path: "/runtime/execute", method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${setup.apiKey}` }, body });
					await response.body.dump({ limit: Number.POSITIVE_INFINITY });
					if (response.statusCode !== 200) throw new Error(`/runtime/execute answered ${response.statusCode}`);
				}
			}),
		);
		const seconds = (performance.now() - started) / 1000;
		const cpuMsPerRequest = (serverCpuMs(server.pid as number) - cpuBefore) / CASES;
		await pool.close();
		return { seconds, cpuMsPerRequest };
	};

	const rows = [
		{ name: "exact_match + contains", datasetId: cheapDataset, concurrency: 4, providerCallsPerCase: 1 },
		{ name: "exact_match + contains", datasetId: cheapDataset, concurrency: 16, providerCallsPerCase: 1 },
		{ name: "rubric (grader on the stand-in)", datasetId: rubricDataset, concurrency: 4, providerCallsPerCase: 2 },
	];
	// Warm both paths once (bundle's first calls, connection pools, caches), unmeasured.
	await timeRun(cheapDataset, 4);
	await timeExecute(4);
	const measured = new Map<(typeof rows)[number] | number, number[]>();
	const executeCpu = new Map<number, number[]>();
	const queued = new Map<(typeof rows)[number], number[]>();
	const perCase = new Map<(typeof rows)[number], { laneMsPerCase: number; generationP50Ms: number; serverCpuMsPerCase: number }[]>();
	for (let index = 0; index < ROUNDS; index += 1) {
		for (const row of rows) {
			const { seconds, queuedSeconds, laneMsPerCase, generationP50Ms, serverCpuMsPerCase } = await timeRun(row.datasetId, row.concurrency);
			perCase.set(row, [...(perCase.get(row) ?? []), { laneMsPerCase, generationP50Ms, serverCpuMsPerCase }]);
			measured.set(row, [...(measured.get(row) ?? []), seconds]);
			queued.set(row, [...(queued.get(row) ?? []), queuedSeconds]);
		}
		for (const concurrency of [4, 16]) {
			const { seconds, cpuMsPerRequest } = await timeExecute(concurrency);
			measured.set(concurrency, [...(measured.get(concurrency) ?? []), seconds]);
			executeCpu.set(concurrency, [...(executeCpu.get(concurrency) ?? []), cpuMsPerRequest]);
		}
		log(`round ${index + 1} of ${ROUNDS} measured`);
	}
	const table = rows.map((row) => {
		const runSeconds = median(measured.get(row) ?? []);
		const executeSeconds = median(measured.get(row.concurrency) ?? []);
		return {
			scorers: row.name,
			cases: CASES,
			concurrency: row.concurrency,
			runSeconds: round(runSeconds),
			runSecondsPerRound: (measured.get(row) ?? []).map((value) => round(value)),
			queuedSeconds: round(median(queued.get(row) ?? [])),
			laneMsPerCase: round(median((perCase.get(row) ?? []).map((entry) => entry.laneMsPerCase)), 1),
			generationP50Ms: median((perCase.get(row) ?? []).map((entry) => entry.generationP50Ms)),
			// The serving process's CPU per case (its worker does the run): steadier than wall time on a shared machine.
			serverCpuMsPerCase: round(median((perCase.get(row) ?? []).map((entry) => entry.serverCpuMsPerCase)), 1),
			casesPerSecond: Math.round(CASES / runSeconds),
			// Same concurrency, one provider call per request: a rubric case makes two.
			executeSeconds: round(executeSeconds),
			ratioToExecute: round(runSeconds / executeSeconds, 1),
			executeServerCpuMsPerRequest: round(median(executeCpu.get(row.concurrency) ?? []), 2),
			underTarget: runSeconds < TARGET_SECONDS,
		};
	});
	const results = {
		...describeRun({ cases: CASES, rounds: ROUNDS, serverBundled: true, evaluationWorker: "inline (defaults: 2 runs at once, 0.5 s poll)", logLevel: "error" }),
		standIn: "instant local OpenAI stand-in",
		targetSeconds: TARGET_SECONDS,
		runs: table,
	};
	console.table(
		table.map((row) => ({
			scorers: row.scorers,
			c: row.concurrency,
			"run s": row.runSeconds,
			"of which queued s": row.queuedSeconds,
			"ms per case (lane)": row.laneMsPerCase,
			"generation p50 ms": row.generationP50Ms,
			"server CPU ms/case": row.serverCpuMsPerCase,
			"cases/s": row.casesPerSecond,
			"/runtime/execute s": row.executeSeconds,
			"run / execute": row.ratioToExecute,
			"execute CPU ms/req": row.executeServerCpuMsPerRequest,
			[`< ${TARGET_SECONDS} s`]: row.underTarget,
		})),
	);
	if (CASES === 200) {
		await mkdir("bench/results", { recursive: true });
		await writeFile("bench/results/evaluations.json", `${JSON.stringify(results, null, 2)}\n`);
		log("wrote bench/results/evaluations.json");
	}
} finally {
	server.kill("SIGTERM");
	await once(server, "exit");
	await operatorServices.close();
	standIn.close();
	standIn.closeAllConnections();
	await database.drop();
}
