import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket, connect } from "node:net";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ResolvedDatabase, resolveDatabase } from "../../server/db/database-url";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { createSource, eventually, uploadDocument, waitForDocument } from "../knowledge/knowledge-helpers";
import { executeBody, workspaceWithCredential } from "../runtime/runtime-fixtures";

/**
 * A fixed address in front of the embedded PostgreSQL, so that it can come back on another port
 * (the embedded cluster picks a free one at each start) while the platform keeps its URL, as a
 * database behind a stable service name does.
 */
async function startTcpForwarder(): Promise<{ port: number; target: { port: number | null }; close(): Promise<void> }> {
	const target: { port: number | null } = { port: null };
	const sockets = new Set<Socket>();
	const server: Server = createServer((client) => {
		sockets.add(client);
		client.on("close", () => sockets.delete(client));
		if (target.port === null) return void client.destroy();
		const upstream = connect(target.port, "127.0.0.1");
		sockets.add(upstream);
		upstream.on("close", () => sockets.delete(upstream));
		client.pipe(upstream).pipe(client);
		upstream.on("error", () => client.destroy());
		client.on("error", () => upstream.destroy());
	}).listen(0, "127.0.0.1");
	await once(server, "listening");
	return {
		port: (server.address() as AddressInfo).port,
		target,
		close: () => {
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

describe("a database restart under steady traffic", { timeout: 180_000 }, () => {
	let dataDirectory: string;
	let database: ResolvedDatabase | undefined;
	let forwarder: Awaited<ReturnType<typeof startTcpForwarder>>;
	let standIn: ProviderStandIn;
	let platform: TestPlatform;
	let generating: TestWorkspace;
	let library: TestWorkspace;

	const startDatabase = async () => {
		database = await resolveDatabase({ dataDirectory, log: () => {} });
		forwarder.target.port = Number(new URL(database.url).port);
		return database;
	};
	const stopDatabase = async () => {
		forwarder.target.port = null;
		await database?.stop();
		database = undefined;
	};

	beforeAll(async () => {
		dataDirectory = await mkdtemp(join(tmpdir(), "platform-restart-"));
		// As root, the cluster runs as the postgres user, which must enter the directory.
		await chmod(dataDirectory, 0o755);
		forwarder = await startTcpForwarder();
		const first = await startDatabase();
		const url = new URL(first.url);
		url.port = String(forwarder.port);
		standIn = await startProviderStandIn();
		standIn.fallback = { kind: "completion", content: "Fine.", usage: { prompt_tokens: 3, completion_tokens: 1 } };
		platform = await startTestPlatform({ databaseUrl: url.toString(), observability: { accessLog: false } });
		generating = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		library = await platform.createWorkspace();
	});

	afterAll(async () => {
		await platform?.stop();
		await standIn?.close();
		await stopDatabase();
		await forwarder?.close();
		await rm(dataDirectory, { recursive: true, force: true });
	});

	it("fails fast with a retryable 503 while it is down, says so on /readyz, serves again without a restart, resumes queued ingestion, and loses no answered generation's trace", async () => {
		const sourceId = await createSource(platform, library.apiKey);
		const answeredTraces: string[] = [];
		const statuses: number[] = [];
		let slowest = 0;
		let traffic = true;
		// Steady traffic: one generation after another, all through the restart.
		const steady = (async () => {
			while (traffic) {
				const started = Date.now();
				const response = await platform.request("POST", "/runtime/execute", { key: generating.apiKey, body: executeBody() });
				slowest = Math.max(slowest, Date.now() - started);
				statuses.push(response.status);
				const body = (await response.json()) as { traceId?: string; code?: string };
				if (response.status === 200) answeredTraces.push(body.traceId as string);
				else expect(response.status).toBe(503);
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
		})();
		await eventually(async () => answeredTraces.length >= 5, 10_000, "traffic before the stop");

		await stopDatabase();
		const answeredBeforeStop = answeredTraces.length;

		// While it is down: knowledge and runtime requests that need it fail fast, retryable; readiness says why.
		const downStarted = Date.now();
		const sources = await platform.request("GET", "/knowledge/sources", { key: library.apiKey });
		expect(sources.status).toBe(503);
		expect(sources.headers.get("retry-after")).toBe("1");
		const envelope = (await sources.json()) as { code: string; message: string };
		expect(envelope.code).toBe("INTERNAL_ERROR");
		expect(envelope.message).toContain("database is unavailable");
		const upload = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, {
			key: library.apiKey,
			body: { filename: "down.md", contentBase64: Buffer.from("# Down\n\nWritten while the database was down.").toString("base64") },
		});
		expect(upload.status).toBe(503);
		const readiness = await fetch(`${platform.url}/readyz`);
		expect(readiness.status).toBe(503);
		expect(((await readiness.json()) as { message: string }).message).toBe("Database unavailable");
		expect((await fetch(`${platform.url}/healthz`)).status).toBe(503);
		expect(Date.now() - downStarted).toBeLessThan(10_000);
		// A few more rounds of traffic against the stopped database.
		await new Promise((resolve) => setTimeout(resolve, 1500));
		const answeredWhileDown = answeredTraces.length - answeredBeforeStop;
		const refusedWhileDown = statuses.filter((status) => status === 503).length;

		await startDatabase();

		// The same process serves again within seconds, without a restart.
		const backAt = Date.now();
		await eventually(async () => (await fetch(`${platform.url}/readyz`)).status === 200, 15_000, "readiness after the restart");
		expect(Date.now() - backAt).toBeLessThan(15_000);
		expect((await platform.request("GET", "/knowledge/sources", { key: library.apiKey })).status).toBe(200);
		// Ingestion queued now is worked by the same process's worker.
		const document = await uploadDocument(platform, library.apiKey, sourceId, "after.md", "# After\n\nThe database came back and ingestion resumed.");
		expect((await waitForDocument(platform, library.apiKey, sourceId, document.id, ["READY", "FAILED"], 30_000)).status).toBe("READY");
		const countBefore = answeredTraces.length;
		await eventually(async () => answeredTraces.length >= countBefore + 3, 10_000, "traffic after the restart");
		traffic = false;
		await steady;

		// Every generation that was answered has its trace, those answered while the database was down included.
		await platform.services.traces.flush();
		const traces = await eventually(async () => {
			const rows = await platform.orm.em.fork().getConnection().execute<{ id: string }[]>("select id from traces where id in (?)", [answeredTraces]);
			return rows.length === answeredTraces.length && rows;
		}, 15_000, "every answered generation's trace");
		expect(traces).toHaveLength(answeredTraces.length);
		expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
		expect(slowest).toBeLessThan(10_000);
		// The runtime refused while the database was down (503, quickly: `slowest` above); any generation
		// answered meanwhile kept its trace in memory until the database came back (checked with the rest).
		expect(refusedWhileDown).toBeGreaterThan(0);
		expect(answeredWhileDown).toBeGreaterThanOrEqual(0);
	});
});
