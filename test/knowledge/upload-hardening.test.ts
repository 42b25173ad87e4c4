import { chmod, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { openSocket } from "../helpers/raw-http";
import { createSource, type DocumentBody, uploadDocument, waitForDocument } from "./knowledge-helpers";

interface LogLine {
	level: string;
	message: string;
	[key: string]: unknown;
}

/** Every log line at debug and above, with a way to wait for one (an event, not a sleep). */
function capturingLogger() {
	const lines: LogLine[] = [];
	const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
	const write = (level: string) => (message: string, context?: Record<string, unknown>) => {
		const line = { ...context, level, message };
		lines.push(line);
		for (const waiter of waiters.filter((candidate) => candidate.match(line))) {
			waiters.splice(waiters.indexOf(waiter), 1);
			waiter.resolve(line);
		}
	};
	const base = createLogger("silent");
	return {
		lines,
		logger: { ...base, debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") },
		waitFor: (match: (line: LogLine) => boolean) => new Promise<LogLine>((resolve) => waiters.push({ match, resolve })),
	};
}

async function walk(directory: string): Promise<{ path: string; mode: number; directory: boolean }[]> {
	const entries = await readdir(directory, { withFileTypes: true });
	const found: { path: string; mode: number; directory: boolean }[] = [];
	for (const entry of entries) {
		const path = join(directory, entry.name);
		found.push({ path, mode: (await stat(path)).mode & 0o777, directory: entry.isDirectory() });
		if (entry.isDirectory()) found.push(...(await walk(path)));
	}
	return found;
}

let platform: TestPlatform;
let workspace: TestWorkspace;
let sourceId: string;
let dataDirectory: string;
const log = capturingLogger();

beforeAll(async () => {
	// As an earlier version left it: the objects directory open to everyone.
	dataDirectory = await mkdtemp(join(tmpdir(), "platform-upload-hardening-"));
	await mkdir(join(dataDirectory, "objects"), { mode: 0o755 });
	await chmod(join(dataDirectory, "objects"), 0o755);
	platform = await startTestPlatform({ logger: log.logger, dataDirectory });
	workspace = await platform.createWorkspace();
	sourceId = await createSource(platform, workspace.apiKey);
});
afterAll(async () => {
	await platform?.stop();
	await rm(dataDirectory, { recursive: true, force: true });
});

describe("stored documents", () => {
	it("are readable by the service's user only: files 0600, directories 0700, the objects root closed even if it existed", async () => {
		// The usual umask, which left files 0644 and directories 0755 before.
		const previous = process.umask(0o022);
		try {
			const document = await uploadDocument(platform, workspace.apiKey, sourceId, "private.txt", "Tenant data, for this tenant only.");
			await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
			const presigned = await platform.request("POST", `/knowledge/sources/${sourceId}/documents`, {
				key: workspace.apiKey,
				body: { filename: "presigned.txt", contentType: "text/plain", byteSize: 5 },
			});
			const { upload } = (await presigned.json()) as { upload: { url: string; headers: Record<string, string> } };
			expect((await fetch(upload.url.replace("localhost", "127.0.0.1"), { method: "PUT", headers: upload.headers, body: "hello" })).status).toBe(200);
		} finally {
			process.umask(previous);
		}
		const root = join(platform.dataDirectory, "objects");
		expect((await stat(root)).mode & 0o777).toBe(0o700);
		const entries = await walk(root);
		expect(entries.filter((entry) => !entry.directory).length).toBeGreaterThanOrEqual(2);
		for (const entry of entries) expect(entry.mode.toString(8), entry.path).toBe(entry.directory ? "700" : "600");
	});
});

describe("presigned PUT aborted by the client", () => {
	it("is logged as a client abort at info, not as an error, and the URL still works afterwards", async () => {
		const bytes = Buffer.from("x".repeat(200_000));
		const response = await platform.request("POST", `/knowledge/sources/${sourceId}/documents`, {
			key: workspace.apiKey,
			body: { filename: "aborted.txt", contentType: "text/plain", byteSize: bytes.length },
		});
		const { document, upload } = (await response.json()) as { document: DocumentBody; upload: { url: string; headers: Record<string, string> } };
		const url = new URL(upload.url);
		const logged = log.waitFor((line) => line.message === "presigned upload aborted by the client" || line.level === "error");

		const socket = await openSocket(platform.url);
		socket.write(`PUT ${url.pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${bytes.length}\r\n\r\n`);
		socket.write(bytes.subarray(0, 50_000), () => socket.destroy());

		expect(await logged).toMatchObject({ level: "info", message: "presigned upload aborted by the client" });
		expect(log.lines.filter((line) => line.level === "error")).toEqual([]);
		const put = await fetch(upload.url.replace("localhost", "127.0.0.1"), { method: "PUT", headers: upload.headers, body: bytes });
		expect(put.status).toBe(200);
		const complete = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/${document.id}/complete`, { key: workspace.apiKey });
		expect(complete.status).toBe(200);
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY", byteSize: bytes.length });
	});
});
