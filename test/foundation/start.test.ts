import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { resolveDatabase } from "../../server/db/database-url";
import { runOperatorCliOnDataDirectory } from "../helpers/operator-cli";
import { TEST_EGRESS_ALLOW_HOSTS } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

let child: ChildProcess | undefined;
let standIn: ProviderStandIn | undefined;
const dataDirectory = mkdtempSync(join(tmpdir(), "platform-start-"));
// The embedded PostgreSQL runs as the postgres system user when we are root; it must traverse this.
chmodSync(dataDirectory, 0o755);

afterAll(async () => {
	if (child && child.exitCode === null && child.signalCode === null) {
		child.kill("SIGTERM");
		await new Promise((resolve) => child?.once("exit", resolve));
	}
	await standIn?.close();
	rmSync(dataDirectory, { recursive: true, force: true });
});

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** The environments of this machine's processes running a bundle whose path ends with `script`, started with PORT=`port`. */
function environmentsOfProcesses(script: string, port: number): Record<string, string>[] {
	const environments: Record<string, string>[] = [];
	for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
		try {
			if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((argument) => argument.endsWith(script))) continue;
			const environment = Object.fromEntries(
				readFileSync(`/proc/${pid}/environ`, "utf8")
					.split("\0")
					.filter(Boolean)
					.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
			);
			if (environment.PORT === String(port)) environments.push(environment);
		} catch {
			// Gone meanwhile.
		}
	}
	return environments;
}

async function operator(...args: string[]) {
	const result = await runOperatorCliOnDataDirectory(dataDirectory, args);
	expect(result.stderr).toBe("");
	return JSON.parse(result.stdout);
}

async function selectOne(databaseUrl: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown> | undefined> {
	const client = new pg.Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		return (await client.query(sql, values)).rows[0];
	} finally {
		await client.end();
	}
}

describe("npm start with no DATABASE_URL", () => {
	it("starts an embedded PostgreSQL, migrates, answers /healthz, and on SIGTERM finishes the generation in flight, writes its trace, then stops the database", async () => {
		const port = await freePort();
		const environment: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDirectory, LOG_LEVEL: "info", EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS };
		delete environment.DATABASE_URL;
		delete environment.SECRET_KEY;
		delete environment.GLIBC_TUNABLES;
		child = spawn("npm", ["start"], { env: environment, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		const outputWaiters: (() => void)[] = [];
		const onOutput = (chunk: Buffer) => {
			output += chunk;
			for (const wake of outputWaiters.splice(0)) wake();
		};
		child.stdout?.on("data", onOutput);
		child.stderr?.on("data", onOutput);
		const logged = async (message: string) => {
			while (!output.includes(`"message":"${message}"`)) await new Promise<void>((resolve) => outputWaiters.push(resolve));
		};

		const deadline = Date.now() + 60_000;
		let health: Response | undefined;
		while (Date.now() < deadline && child.exitCode === null) {
			health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
			if (health?.ok) break;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		expect(health?.status, output).toBe(200);
		expect(await health?.json()).toEqual({ status: "ok", database: "ok" });
		expect(existsSync(join(dataDirectory, "secret-key"))).toBe(true);
		expect(existsSync(join(dataDirectory, "postgres", "PG_VERSION"))).toBe(true);
		// The server and its ingestion worker process keep malloc's large blocks on transparent huge pages (docs/production.md).
		const started = [...environmentsOfProcesses("dist/main.js", port), ...environmentsOfProcesses("dist/worker.js", port)];
		expect(started.map((environment) => environment.GLIBC_TUNABLES)).toEqual(["glibc.malloc.hugetlb=1", "glibc.malloc.hugetlb=1"]);

		// An operator beside the running server: the CLI shares its cluster and its secret-key file.
		const bootstrap = await operator("bootstrap", "--organization", "Acme", "--workspace", "Main", "--email", "owner@example.com", "--password", "a long password");
		standIn = await startProviderStandIn();
		await operator("provider-credential", "set", "--workspace", bootstrap.workspaceId, "--provider", "openai", "--api-key", "sk-start-test", "--base-url", standIn.baseUrl);
		const shared = await resolveDatabase({ dataDirectory });
		expect(shared.embedded).toBe(false);

		// A generation held at the provider is in flight when the signal comes.
		let release = () => {};
		standIn.script({ kind: "completion", content: "Finished during shutdown", holdUntil: new Promise<void>((resolve) => (release = resolve)) });
		const arrived = standIn.nextRequest();
		const generation = fetch(`http://127.0.0.1:${port}/runtime/execute`, {
			method: "POST",
			headers: { authorization: `Bearer ${bootstrap.apiKey}`, "content-type": "application/json" },
			body: JSON.stringify({ providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello." }] }),
		});
		await arrived;

		const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child?.once("exit", (code, signal) => resolve({ code, signal })));
		child.kill("SIGTERM");
		await logged("stopping");
		// The platform drains first: the database still serves while a request is in flight.
		expect(await selectOne(shared.url, "select 1 as up")).toEqual({ up: 1 });
		release();
		const answer = await generation;
		expect(answer.status, output).toBe(200);
		expect(await answer.json()).toMatchObject({ message: { role: "assistant", content: "Finished during shutdown" } });

		const answeredAt = Date.now();
		const exit = await exited;
		// A coarse bound: its keep-alive connection must not hold the exit for keepAliveTimeout (65 s).
		expect(Date.now() - answeredAt, output).toBeLessThan(15_000);
		// npm reports a forwarded SIGTERM as death by that signal; the server itself exits 0.
		expect(exit.code === 0 || exit.signal === "SIGTERM", `${JSON.stringify(exit)}\n${output}`).toBe(true);
		expect(output).not.toContain('"level":"error"');
		const stopDeadline = Date.now() + 15_000;
		while (existsSync(join(dataDirectory, "postgres", "postmaster.pid")) && Date.now() < stopDeadline) {
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		expect(existsSync(join(dataDirectory, "postgres", "postmaster.pid")), "embedded PostgreSQL left running").toBe(false);

		// The trace of the generation that finished during shutdown was written before the database stopped.
		const restarted = await resolveDatabase({ dataDirectory });
		try {
			expect(await selectOne(restarted.url, "select output, error_code from traces where workspace = $1", [bootstrap.workspaceId])).toEqual({
				output: "Finished during shutdown",
				error_code: null,
			});
		} finally {
			await restarted.stop();
		}
	}, 180_000);
});
