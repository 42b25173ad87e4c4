import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";

const directories: string[] = [];
const dataDirectory = () => {
	const directory = mkdtempSync(join(tmpdir(), "platform-secret-key-"));
	directories.push(directory);
	return directory;
};
afterEach(() => {
	for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("DATA_DIR/secret-key", () => {
	it("is generated once, owner-only, and read back on the next start", () => {
		const directory = dataDirectory();
		const first = loadConfig({ DATA_DIR: directory }).secretKey;
		expect(first.length).toBeGreaterThanOrEqual(32);
		expect(statSync(join(directory, "secret-key")).mode & 0o777).toBe(0o600);
		expect(loadConfig({ DATA_DIR: directory }).secretKey).toBe(first);
	});

	it.each([
		["empty", "", "holds no key"],
		["only whitespace", " \n\n", "holds no key"],
		["too short", "short-key\n", "holds a 9-character key"],
	])("refuses to start when the file is %s, in one sentence saying what to do", (_case, content, says) => {
		const directory = dataDirectory();
		writeFileSync(join(directory, "secret-key"), content);
		let message = "";
		try {
			loadConfig({ DATA_DIR: directory });
		} catch (error) {
			expect((error as Error).name).toBe("ConfigurationError");
			message = (error as Error).message;
		}
		expect(message).toContain(`${join(directory, "secret-key")} ${says}`);
		expect(message).toContain("at least 32 characters");
		expect(message).toMatch(/restore the original file/);
		expect(message.split(". ")).toHaveLength(1);
		// The file is left as it was for the operator to look at.
		expect(readFileSync(join(directory, "secret-key"), "utf8")).toBe(content);
	});

	it("SECRET_KEY set in the environment wins, and the file is not consulted", () => {
		const directory = dataDirectory();
		writeFileSync(join(directory, "secret-key"), "");
		expect(loadConfig({ DATA_DIR: directory, SECRET_KEY: "x".repeat(32) }).secretKey).toBe("x".repeat(32));
	});
});

describe("socket settings", () => {
	it("HTTP_MAX_CONNECTIONS, HTTP_REQUEST_TIMEOUT_SECONDS and HTTP_SHUTDOWN_GRACE_SECONDS reach the server's limits, with defaults", () => {
		const base = { SECRET_KEY: "x".repeat(32) };
		expect(loadConfig(base).http).toEqual({ maxConnections: 1024, requestTimeoutMs: 120_000, shutdownGraceMs: 25_000 });
		expect(loadConfig({ ...base, HTTP_MAX_CONNECTIONS: "3", HTTP_REQUEST_TIMEOUT_SECONDS: "0.5", HTTP_SHUTDOWN_GRACE_SECONDS: "0" }).http).toEqual({
			maxConnections: 3,
			requestTimeoutMs: 500,
			shutdownGraceMs: 0,
		});
		expect(() => loadConfig({ ...base, HTTP_MAX_CONNECTIONS: "0" })).toThrow("HTTP_MAX_CONNECTIONS");
		expect(() => loadConfig({ ...base, HTTP_SHUTDOWN_GRACE_SECONDS: "-1" })).toThrow("HTTP_SHUTDOWN_GRACE_SECONDS");
	});
});

describe("sign-in settings", () => {
	const base = { SECRET_KEY: "x".repeat(32) };

	it("TRUSTED_PROXIES takes addresses and CIDR ranges, and refuses to start on anything else, naming it", () => {
		expect(loadConfig(base).trustedProxies).toEqual([]);
		expect(loadConfig({ ...base, TRUSTED_PROXIES: " 10.0.0.0/8, 192.168.1.7 ,fd00::/8," }).trustedProxies).toEqual(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);
		for (const entry of ["proxy.internal", "10.0.0.0/33", "10.0.0.1/", "::1/129"]) {
			expect(() => loadConfig({ ...base, TRUSTED_PROXIES: `10.0.0.1,${entry}` })).toThrow(new RegExp(`TRUSTED_PROXIES: "${entry.replace(/[./]/g, "\\$&")}" is not an IP address or CIDR range`));
		}
	});

	it("SIGN_IN_* and PASSWORD_HASH_* reach the throttle and the hashing line, with defaults", () => {
		expect(loadConfig(base).signIn).toEqual({ attemptsPerAccountAndAddress: 5, attemptsPerAddress: 50, attemptsPerAccount: 100, backoffSeconds: 30, backoffMaxSeconds: 900 });
		expect(loadConfig(base).passwordHashing).toEqual({ concurrency: 1, queue: 8 });
		const set = loadConfig({ ...base, SIGN_IN_ATTEMPTS: "3", SIGN_IN_BACKOFF_SECONDS: "60", SIGN_IN_BACKOFF_MAX_SECONDS: "10", PASSWORD_HASH_CONCURRENCY: "2", PASSWORD_HASH_QUEUE: "0" });
		// A maximum below the first delay is the first delay.
		expect(set.signIn).toMatchObject({ attemptsPerAccountAndAddress: 3, backoffSeconds: 60, backoffMaxSeconds: 60 });
		expect(set.passwordHashing).toEqual({ concurrency: 2, queue: 0 });
		expect(() => loadConfig({ ...base, SIGN_IN_ATTEMPTS: "0" })).toThrow("SIGN_IN_ATTEMPTS");
		expect(() => loadConfig({ ...base, PASSWORD_HASH_CONCURRENCY: "0" })).toThrow("PASSWORD_HASH_CONCURRENCY");
	});
});

describe("worker settings", () => {
	const base = { SECRET_KEY: "x".repeat(32) };

	it("by default npm start runs a worker process beside the server, which itself does not ingest; inline and off are kept", () => {
		expect(loadConfig(base)).toMatchObject({ workerProcess: true, knowledge: { worker: "off" } });
		expect(loadConfig({ ...base, KNOWLEDGE_WORKER: "inline" })).toMatchObject({ workerProcess: false, knowledge: { worker: "inline" } });
		expect(loadConfig({ ...base, KNOWLEDGE_WORKER: "off" })).toMatchObject({ workerProcess: false, knowledge: { worker: "off" } });
	});

	it("WORKER_JOBS takes ingestion, evaluations or both, and refuses anything else by name", () => {
		expect(loadConfig(base).workerJobs).toEqual(["ingestion", "evaluations"]);
		expect(loadConfig({ ...base, WORKER_JOBS: " evaluations " }).workerJobs).toEqual(["evaluations"]);
		for (const bad of ["ingestion,grading", "", ","]) {
			expect(() => loadConfig({ ...base, WORKER_JOBS: bad })).toThrow(/WORKER_JOBS: a comma-separated list of ingestion, evaluations/);
		}
	});
});
