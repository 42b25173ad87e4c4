import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKER_APPLICATION_NAME } from "../../server/db/background-sessions";
import { createTestDatabase } from "../helpers/database";
import { runOperatorCli } from "../helpers/operator-cli";
import { TEST_EGRESS_ALLOW_HOSTS, TEST_SECRET_KEY } from "../helpers/platform";
import { WorkerProcess } from "../../server/jobs/worker-process";
import { BACKGROUND_NICENESS } from "../../server/shared/background-priority";
import { createLogger } from "../../server/shared/logger";

/** The bundle `npm start` runs (built for the whole run by test/global-setup.ts), started with node so a signal reaches it, not npm. */
const SERVER_BUNDLE = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** The fields of a /proc stat file after the command's name (which may hold spaces): field 3 (the state) first. */
function statFields(path: string): string[] {
	const stat = readFileSync(path, "utf8");
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Each thread's niceness (Linux keeps one per thread: field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(pid: number): Map<number, number> {
	return new Map(readdirSync(`/proc/${pid}/task`).map((thread) => [Number(thread), Number(statFields(`/proc/${pid}/task/${thread}/stat`)[16])]));
}

/** The niceness of a process's scheduling group where the kernel groups processes by session (autogroups, when enabled), else null. */
function autogroupNiceness(pid: number): number | null {
	if (!existsSync("/proc/sys/kernel/sched_autogroup_enabled") || readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() !== "1") return null;
	return Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, "utf8"))?.[1]);
}

/** The session a process belongs to (field 6 of /proc/<pid>/stat). */
function sessionOf(pid: number): number {
	return Number(statFields(`/proc/${pid}/stat`)[3]);
}

/** The niceness of each client session's backend process on this database, by the session's application_name. */
async function sessionNiceness(databaseUrl: string): Promise<{ applicationName: string; niceness: number; groupNiceness: number | null }[]> {
	const client = new pg.Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		const { rows } = await client.query<{ pid: number; application_name: string }>(
			"select pid, application_name from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()",
		);
		return rows.map((row) => ({ applicationName: row.application_name, niceness: threadNiceness(row.pid).get(row.pid) as number, groupNiceness: autogroupNiceness(row.pid) }));
	} finally {
		await client.end();
	}
}

/** Running, not a zombie waiting for a parent that may never reap it (an orphan's new parent here). */
function isAlive(pid: number): boolean {
	try {
		return statFields(`/proc/${pid}/stat`)[0] !== "Z";
	} catch {
		return false;
	}
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** `npm start`'s server over a test database, its JSON log lines collected. */
class ServerProcess {
	readonly lines: Record<string, unknown>[] = [];
	private pending = "";

	private constructor(
		readonly child: ChildProcess,
		readonly url: string,
	) {
		const collect = (chunk: Buffer) => {
			this.pending += chunk;
			const complete = this.pending.split("\n");
			this.pending = complete.pop() ?? "";
			for (const line of complete) {
				try {
					this.lines.push(JSON.parse(line));
				} catch {
					this.lines.push({ message: line });
				}
			}
		};
		child.stdout?.on("data", collect);
		child.stderr?.on("data", collect);
	}

	static async start(databaseUrl: string, dataDirectory: string): Promise<ServerProcess> {
		const port = await freePort();
		const child = spawn(process.execPath, ["--enable-source-maps", SERVER_BUNDLE], {
			env: { ...process.env, DATABASE_URL: databaseUrl, SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: dataDirectory, PORT: String(port), LOG_LEVEL: "info", EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const server = new ServerProcess(child, `http://127.0.0.1:${port}`);
		await until(async () => (await fetch(`${server.url}/healthz`).catch(() => undefined))?.ok === true, 60_000, `the server to answer\n${server.output}`);
		return server;
	}

	get output(): string {
		return this.lines.map((line) => JSON.stringify(line)).join("\n");
	}

	/** Process ids of the ingestion worker processes the server reported starting, in order. */
	workerPids(): number[] {
		return this.lines.filter((line) => line.message === "ingestion worker process started").map((line) => line.pid as number);
	}

	async request(method: string, path: string, key: string, body?: unknown): Promise<Response> {
		return fetch(`${this.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
	}

	async ingest(key: string, sourceId: string, filename: string, text: string): Promise<{ status: string; chunkCount: number }> {
		const uploaded = await this.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, key, { filename, contentBase64: Buffer.from(text).toString("base64") });
		expect(uploaded.status, await uploaded.clone().text()).toBe(201);
		const { id } = (await uploaded.json()) as { id: string };
		let document = { status: "PENDING", chunkCount: 0 };
		await until(
			async () => {
				document = (await (await this.request("GET", `/knowledge/sources/${sourceId}/documents/${id}`, key)).json()) as typeof document;
				return document.status === "READY" || document.status === "FAILED";
			},
			30_000,
			`${filename} to be ingested\n${this.output}`,
		);
		return document;
	}
}

describe("npm start's ingestion worker process (KNOWLEDGE_WORKER=process, the default)", () => {
	let database: Awaited<ReturnType<typeof createTestDatabase>>;
	const dataDirectory = mkdtempSync(join(tmpdir(), "worker-process-"));
	const servers: ServerProcess[] = [];

	beforeAll(async () => {
		database = await createTestDatabase();
	});
	afterAll(async () => {
		for (const server of servers) {
			if (server.child.exitCode === null && server.child.signalCode === null) {
				server.child.kill("SIGKILL");
				await once(server.child, "exit");
			}
			for (const pid of server.workerPids()) if (isAlive(pid)) process.kill(pid, "SIGKILL");
		}
		await database?.drop();
		rmSync(dataDirectory, { recursive: true, force: true });
	});

	it("ingests in a process of its own, is started again when it dies, stops with the server, and does not outlive a server that was killed", async () => {
		const server = await ServerProcess.start(database.url, dataDirectory);
		servers.push(server);
		const bootstrap = await runOperatorCli(database.url, ["bootstrap", "--organization", "Acme", "--workspace", "Main", "--email", "owner@example.com", "--password", "a long password"]);
		expect(bootstrap.stderr).toBe("");
		const { apiKey } = JSON.parse(bootstrap.stdout) as { apiKey: string };
		const created = await server.request("POST", "/knowledge/sources", apiKey, { name: "Manuals" });
		expect(created.status).toBe(201);
		const sourceId = ((await created.json()) as { id: string }).id;

		// The server reported its worker: a process of its own, not the server.
		await until(() => server.workerPids().length === 1, 30_000, `the worker process\n${server.output}`);
		const [first] = server.workerPids();
		expect(first).not.toBe(server.child.pid);
		expect(isAlive(first)).toBe(true);
		expect(await server.ingest(apiKey, sourceId, "pumps.txt", "The centrifugal pump is primed before it is started.\n\nA dry pump wears its seals.")).toMatchObject({ status: "READY" });
		// Background work on the API's cores: every thread of the worker yields to the server's, its collector's
		// helpers (started before any script) included; the server keeps its priority.
		const workerThreads = threadNiceness(first);
		expect(workerThreads.size).toBeGreaterThan(4);
		expect(new Set(workerThreads.values())).toEqual(new Set([BACKGROUND_NICENESS]));
		expect(threadNiceness(server.child.pid as number).get(server.child.pid as number)).toBe(0);
		// And its statements (an ingestion's inserts compute every chunk's tsvector): the database's
		// backends serving the worker's pooled sessions run at background priority, the server's at normal.
		const sessions = await sessionNiceness(database.url);
		const workerSessions = sessions.filter((session) => session.applicationName === WORKER_APPLICATION_NAME);
		expect(workerSessions.length).toBeGreaterThan(0);
		expect(new Set(workerSessions.map((session) => session.niceness))).toEqual(new Set([BACKGROUND_NICENESS]));
		const serverSessions = sessions.filter((session) => session.applicationName === "");
		expect(serverSessions.length).toBeGreaterThan(0);
		expect(new Set(serverSessions.map((session) => session.niceness))).toEqual(new Set([0]));
		// Where the kernel shares the cores between sessions first (each backend leads its own), the worker's backends' groups too.
		if (autogroupNiceness(process.pid) !== null) {
			expect(new Set(workerSessions.map((session) => session.groupNiceness))).toEqual(new Set([BACKGROUND_NICENESS]));
			expect(new Set(serverSessions.map((session) => session.groupNiceness))).toEqual(new Set([0]));
		}
		// The worker leads a session of its own, so its work does not count against the group the API's thread
		// wakes in; where the kernel groups by session, that group is lowered, the server's is not.
		expect(sessionOf(first)).toBe(first);
		expect(sessionOf(server.child.pid as number)).not.toBe(first);
		if (autogroupNiceness(process.pid) !== null) {
			expect(autogroupNiceness(first)).toBe(BACKGROUND_NICENESS);
			expect(autogroupNiceness(server.child.pid as number)).toBe(autogroupNiceness(process.pid));
		}

		// Killed outright (out of memory, say): the server stays up and starts another.
		process.kill(first, "SIGKILL");
		await until(() => server.workerPids().length === 2, 30_000, `a second worker process\n${server.output}`);
		expect(server.lines.some((line) => line.message === "the ingestion worker process exited; starting it again" && line.signal === "SIGKILL")).toBe(true);
		expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
		const [, second] = server.workerPids();
		expect(await server.ingest(apiKey, sourceId, "valves.txt", "A gate valve is either fully open or fully closed.")).toMatchObject({ status: "READY" });
		const search = await server.request("GET", `/knowledge/sources/${sourceId}/search?query=gate+valve&topK=1`, apiKey);
		expect(search.status).toBe(200);
		expect(JSON.stringify(await search.json())).toContain("gate valve");

		// SIGTERM: the server stops its worker (which finishes first) and exits cleanly.
		const exited = once(server.child, "exit");
		server.child.kill("SIGTERM");
		expect(await exited).toEqual([0, null]);
		expect(isAlive(second), "the worker outlived the server").toBe(false);
		expect(server.output).not.toContain('"message":"the ingestion worker process did not stop in time');

		// A server killed outright cannot stop its worker: the worker notices and stops on its own.
		const killed = await ServerProcess.start(database.url, dataDirectory);
		servers.push(killed);
		await until(() => killed.workerPids().length === 1, 30_000, `the worker process\n${killed.output}`);
		const [orphan] = killed.workerPids();
		killed.child.kill("SIGKILL");
		await once(killed.child, "exit");
		await until(() => !isAlive(orphan), 30_000, "the orphaned worker to stop");
	}, 180_000);
});

describe("WorkerProcess", () => {
	it("lowers the process it starts before the process's own code runs: its first statement already finds itself and its session's group at background priority", async () => {
		const directory = mkdtempSync(join(tmpdir(), "worker-start-"));
		const report = join(directory, "report.json");
		// A stand-in for the worker's bundle whose first statement reads its own priority (the real
		// bundle lowers itself only after a few hundred milliseconds of loading), then waits to be stopped.
		const script = join(directory, "first-statement.cjs");
		writeFileSync(
			script,
			`const { readFileSync, writeFileSync } = require("node:fs");
			const niceness = require("node:os").getPriority();
			let group = null;
			try { group = Number(/nice (-?\\d+)/.exec(readFileSync("/proc/self/autogroup", "utf8"))[1]); } catch {}
			writeFileSync(${JSON.stringify(report)}, JSON.stringify({ niceness, group }));
			setInterval(() => {}, 1000);`,
		);
		const worker = WorkerProcess.start({ script, environment: {}, logger: createLogger("error"), stopGraceMs: 5_000 });
		try {
			await until(() => existsSync(report) && readFileSync(report, "utf8").length > 0, 30_000, "the started process's report");
			const { niceness, group } = JSON.parse(readFileSync(report, "utf8")) as { niceness: number; group: number | null };
			expect(niceness).toBe(BACKGROUND_NICENESS);
			if (autogroupNiceness(process.pid) !== null) expect(group).toBe(BACKGROUND_NICENESS);
		} finally {
			await worker.stop();
			rmSync(directory, { recursive: true, force: true });
		}
	}, 60_000);
});
