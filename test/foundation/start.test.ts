import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, chmodSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

let child: ChildProcess | undefined;
const dataDirectory = mkdtempSync(join(tmpdir(), "platform-start-"));
// The embedded PostgreSQL runs as the postgres system user when we are root; it must traverse this.
chmodSync(dataDirectory, 0o755);

afterAll(async () => {
	if (child && child.exitCode === null && child.signalCode === null) {
		child.kill("SIGTERM");
		await new Promise((resolve) => child?.once("exit", resolve));
	}
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

describe("npm start with no DATABASE_URL", () => {
	it("starts an embedded PostgreSQL, migrates, answers /healthz, and stops cleanly on SIGTERM", async () => {
		const port = await freePort();
		const environment: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDirectory, LOG_LEVEL: "warn" };
		delete environment.DATABASE_URL;
		delete environment.SECRET_KEY;
		child = spawn("npm", ["start"], { env: environment, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout?.on("data", (chunk) => {
			output += chunk;
		});
		child.stderr?.on("data", (chunk) => {
			output += chunk;
		});

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

		child.kill("SIGTERM");
		const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
			child?.once("exit", (code, signal) => resolve({ code, signal })),
		);
		// npm reports a forwarded SIGTERM as death by that signal; the server itself exits 0.
		expect(exit.code === 0 || exit.signal === "SIGTERM", JSON.stringify(exit)).toBe(true);
		const stopDeadline = Date.now() + 15_000;
		while (existsSync(join(dataDirectory, "postgres", "postmaster.pid")) && Date.now() < stopDeadline) {
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		expect(existsSync(join(dataDirectory, "postgres", "postmaster.pid")), "embedded PostgreSQL left running").toBe(false);
	}, 90_000);
});
