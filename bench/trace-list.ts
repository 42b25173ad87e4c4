/**
 * npm run bench:trace-list — how fast the dashboard's trace list opens its first page over 100,000 generations.
 *
 * A real server (in this process, over a real socket) on a fresh database; BENCH_TRACES (100,000)
 * traces are written straight into the workspace's table over the last 90 days, spread over 20
 * assistants, 3 versions and 2 environments, 2% failed, each with stored content (messages and
 * output) as the runtime stores them, plus 20,000 in another workspace. Then, with a signed-in
 * dashboard session over keep-alive HTTP, each row's request is timed BENCH_REQUESTS (60) times
 * after 5 warm-up requests; median and p95 are reported. Baseline in the same run: GET
 * /management/session (the cheapest authenticated route: session check, no trace read); the ratio
 * is what reading the traces adds. Target: the first page in under 300 ms.
 *
 * Database: BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres@127.0.0.1:5432 (a fresh
 * database is created and dropped). Results: bench/results/trace-list.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { parseEgressAllowList } from "../server/egress/allow-list";
import { createUseCaseContext } from "../server/modules/platform-services";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { startPlatform } from "../server/platform";
import { createLogger } from "../server/shared/logger";
import { OPERATOR } from "../server/shared/principal";
import { createTestDatabase } from "../test/helpers/database";
import { signInToDashboard } from "../test/helpers/dashboard-session";
import { describeRun } from "./run-record";

const TRACES = Number(process.env.BENCH_TRACES ?? 100_000);
const OTHER_TRACES = 20_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
const WARM_UP = 5;
const TARGET_MS = 300;
const PASSWORD = "bench password 0123456789";
const log = (message: string) => process.stdout.write(`${message}\n`);

if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;

/** n traces of a workspace, newest now, oldest 90 days ago, in one INSERT … SELECT (no per-row round trip). */
function insertTraces(workspaceId: string, count: number, prefix: string): string {
	return `insert into traces (id, workspace, api_key, principal_type, principal_id, kind, streamed, assistant, version, environment, provider, model, input, output,
	                            latency_ms, time_to_first_token_ms, input_tokens, output_tokens, total_tokens, cost_micro_usd, finish_reason, error_code, error_message, created_at)
	select '${prefix}' || lpad(i::text, 10, '0'), '${workspaceId}', 'key_bench', 'api_key', 'key_bench',
	       (array['assistant','assistant','assistant','playground','execute','evaluation'])[1 + i % 6], i % 2 = 0,
	       'ast_' || (i % 20), 'ver_' || (i % 20) || '_' || (i % 3), (array['env_production','env_staging'])[1 + i % 2],
	       'openai', 'gpt-4o-mini',
	       jsonb_build_object('messages', jsonb_build_array(
	         jsonb_build_object('role', 'system', 'content', repeat('You are a helpful assistant for the harbour office. ', 8)),
	         jsonb_build_object('role', 'user', 'content', 'Question number ' || i || ': when does the ferry leave?')),
	         'config', jsonb_build_object('model', 'gpt-4o-mini', 'temperature', 0.2)),
	       repeat('The ferry leaves at nine every weekday morning. ', 4),
	       200 + (i::bigint * 7919) % 1800, 80 + (i::bigint * 104729) % 400, 400 + i % 300, 50 + i % 200, 450 + i % 300 + 50 + i % 200, 150 + i % 90,
	       case when i % 50 = 0 then null else 'stop' end, case when i % 50 = 0 then 'PROVIDER_ERROR' end, case when i % 50 = 0 then 'The provider answered 500' end,
	       now() - (interval '90 days') * (i::float / ${count})
	  from generate_series(1, ${count}) as i`;
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function main() {
	const database = await createTestDatabase();
	const dataDirectory = await mkdtemp(join(tmpdir(), "bench-trace-list-"));
	const platform = await startPlatform({
		dataDirectory,
		databaseUrl: database.url,
		secretKey: "bench-secret-key-0123456789abcdef0123456789",
		port: 0,
		host: "127.0.0.1",
		logger: createLogger("silent"),
		egress: { allowList: parseEgressAllowList("127.0.0.1") },
		quotas: { rateLimitPerMinute: 0 },
	});
	try {
		const operator = () => createUseCaseContext(platform.services, OPERATOR);
		const email = "bench@example.com";
		const installation = await bootstrapInstallation(operator(), { organization: "Bench", workspace: "Bench", email, password: PASSWORD });
		const other = await bootstrapInstallation(operator(), { organization: "Other", workspace: "Other", email: "other@example.com", password: PASSWORD });
		const connection = platform.services.orm.em.getConnection();
		const started = performance.now();
		await connection.execute(insertTraces(installation.workspaceId, TRACES, "trc_bench_"));
		await connection.execute(insertTraces(other.workspaceId, OTHER_TRACES, "trc_other_"));
		await connection.execute("analyze traces");
		log(`${TRACES + OTHER_TRACES} traces written in ${Math.round(performance.now() - started)} ms`);

		const session = await signInToDashboard(platform.url, email, PASSWORD);
		const client = new Pool(platform.url, { connections: 1 });
		const base = `/management/workspaces/${installation.workspaceId}`;
		const get = async (path: string): Promise<{ ms: number; body: unknown }> => {
			const at = performance.now();
			const response = await client.request({ method: "GET", path, headers: { cookie: session.cookie } });
			const body = await response.body.json();
			const ms = performance.now() - at;
			if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${JSON.stringify(body)}`);
			return { ms, body };
		};
		// The 11th page: the cursor ten pages down, found by paging as a person would.
		let before = "";
		for (let page = 0; page < 10; page += 1) {
			const { body } = await get(`${base}/traces?limit=25${before ? `&before=${before}` : ""}`);
			before = (body as { nextBefore: string }).nextBefore;
		}
		const today = new Date().toISOString().slice(0, 10);
		const monthAgo = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
		const rows: { name: string; path: string }[] = [
			{ name: "baseline: GET /management/session", path: "/management/session" },
			{ name: "first page (25 newest)", path: `${base}/traces?limit=25` },
			{ name: "first page, one assistant", path: `${base}/traces?limit=25&assistantId=ast_7` },
			{ name: "first page, one assistant and version", path: `${base}/traces?limit=25&assistantId=ast_7&versionId=ver_7_1` },
			{ name: "first page, failures only (2%)", path: `${base}/traces?limit=25&failed=true` },
			{ name: "first page, one environment and kind", path: `${base}/traces?limit=25&environmentId=env_staging&kind=playground` },
			{ name: "11th page (keyset cursor)", path: `${base}/traces?limit=25&before=${before}` },
			{ name: "usage, 30 days (charts)", path: `${base}/usage?since=${monthAgo}&until=${today}` },
		];
		const results: { name: string; medianMs: number; p95Ms: number; ratioToBaseline: number }[] = [];
		let baseline = 1;
		for (const row of rows) {
			for (let index = 0; index < WARM_UP; index += 1) await get(row.path);
			const times: number[] = [];
			for (let index = 0; index < REQUESTS; index += 1) times.push((await get(row.path)).ms);
			times.sort((a, b) => a - b);
			const median = percentile(times, 0.5);
			if (results.length === 0) baseline = median;
			results.push({ name: row.name, medianMs: Math.round(median * 100) / 100, p95Ms: Math.round(percentile(times, 0.95) * 100) / 100, ratioToBaseline: Math.round((median / baseline) * 10) / 10 });
		}
		await client.close();

		log("");
		log(`Trace list over ${TRACES} generations (${REQUESTS} requests a row, keep-alive, signed in)`);
		log(`${"row".padEnd(44)} ${"median ms".padStart(10)} ${"p95 ms".padStart(10)} ${"x baseline".padStart(11)}`);
		for (const result of results) log(`${result.name.padEnd(44)} ${result.medianMs.toFixed(2).padStart(10)} ${result.p95Ms.toFixed(2).padStart(10)} ${result.ratioToBaseline.toFixed(1).padStart(11)}`);
		const firstPage = results[1];
		const met = results.slice(1, 7).every((result) => result.p95Ms < TARGET_MS);
		log("");
		log(`Target: first page under ${TARGET_MS} ms (p95 of every list row): ${met ? "met" : "NOT met"}; first page median ${firstPage.medianMs} ms, p95 ${firstPage.p95Ms} ms.`);
		await mkdir(join(import.meta.dirname, "results"), { recursive: true });
		await writeFile(
			join(import.meta.dirname, "results", "trace-list.json"),
			`${JSON.stringify({ run: describeRun({ traces: TRACES, otherWorkspaceTraces: OTHER_TRACES, requests: REQUESTS, warmUp: WARM_UP, pageSize: 25 }), targetMs: TARGET_MS, targetMet: met, rows: results }, null, 2)}\n`,
		);
	} finally {
		await platform.close();
		await database.drop();
		await rm(dataDirectory, { recursive: true, force: true });
	}
}

await main();
