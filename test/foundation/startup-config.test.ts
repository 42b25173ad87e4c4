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
