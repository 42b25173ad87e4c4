import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../server/shared/logger";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";
import { createSource, eventually, searchPath } from "../knowledge/knowledge-helpers";

interface LogLine {
	level: string;
	message: string;
	[field: string]: unknown;
}

/** A logger keeping every line as the JSON logger would write it. */
function capturingLogger(lines: LogLine[]): Logger {
	const write = (level: string) => (message: string, context?: Record<string, unknown>) => void lines.push(JSON.parse(JSON.stringify({ level, message, ...context })) as LogLine);
	return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

let platform: TestPlatform;
const lines: LogLine[] = [];

beforeAll(async () => {
	platform = await startTestPlatform({ logger: capturingLogger(lines) });
});

afterAll(async () => {
	await platform?.stop();
});

describe("GET /readyz", () => {
	it("is 200 when the database answers and every migration is applied", async () => {
		const response = await fetch(`${platform.url}/readyz`);
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ status: "ready", database: "ok", migrations: "ok" });
	});

	it("is 503 naming the migration a database lacks (a build newer than its database)", async () => {
		const connection = platform.orm.em.fork().getConnection();
		const [latest] = await connection.execute<{ id: number; name: string; executed_at: Date }[]>("select * from mikro_orm_migrations order by id desc limit 1");
		await connection.execute("delete from mikro_orm_migrations where id = ?", [latest.id]);
		try {
			const response = await fetch(`${platform.url}/readyz`);
			expect(response.status).toBe(503);
			const body = (await response.json()) as { code: string; message: string };
			expect(body.code).toBe("INTERNAL_ERROR");
			expect(body.message).toBe(`Migrations not applied: 1 pending (${latest.name.replace(/\.[cm]?[jt]s$/, "")})`);
			// Liveness is unaffected: the process is fine, it only should not get traffic.
			expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
		} finally {
			await connection.execute("insert into mikro_orm_migrations (id, name, executed_at) values (?, ?, ?)", [latest.id, latest.name, latest.executed_at]);
		}
		expect((await fetch(`${platform.url}/readyz`)).status).toBe(200);
	});
});

describe("access log", () => {
	it("writes one JSON line per request at info: method, route template, status, duration, request id, key id; never the key, the query or the body", async () => {
		const workspace = await platform.createWorkspace();
		const sourceId = await createSource(platform, workspace.apiKey, "Private-Source-Name");
		const search = await platform.request("GET", searchPath(sourceId, { query: "confidential-query-words" }), { key: workspace.apiKey });
		expect(search.status).toBe(200);
		const requestId = search.headers.get("x-request-id");
		const refused = await fetch(`${platform.url}/knowledge/sources`, { headers: { authorization: "Bearer csk_live_not-a-real-key-0123456789" } });
		expect(refused.status).toBe(401);

		const line = await eventually(async () => lines.find((entry) => entry.message === "request" && entry.requestId === requestId), 5_000, "the search's access-log line");
		expect(line).toEqual({
			level: "info",
			message: "request",
			requestId,
			method: "GET",
			route: "/knowledge/sources/:sourceId/search",
			status: 200,
			durationMs: expect.any(Number),
			apiKeyId: expect.stringMatching(/^key_/),
			workspaceId: workspace.workspaceId,
		});
		expect(lines.filter((entry) => entry.message === "request" && entry.requestId === requestId)).toHaveLength(1);
		const refusedLine = await eventually(async () => lines.find((entry) => entry.message === "request" && entry.requestId === refused.headers.get("x-request-id")), 5_000, "the refusal's line");
		expect(refusedLine).toMatchObject({ route: "/knowledge/sources", status: 401 });
		const written = JSON.stringify(lines);
		for (const secret of [workspace.apiKey, "csk_live_not-a-real-key", "confidential-query-words", "Private-Source-Name", sourceId]) expect(written).not.toContain(secret);
	});

	it("is switched off by ACCESS_LOG=false", async () => {
		const quiet: LogLine[] = [];
		const other = await startTestPlatform({ logger: capturingLogger(quiet), observability: { accessLog: false } });
		try {
			expect((await fetch(`${other.url}/healthz`)).status).toBe(200);
			expect((await fetch(`${other.url}/no-such-path`)).status).toBe(404);
			expect(quiet.filter((entry) => entry.message === "request")).toEqual([]);
		} finally {
			await other.stop();
		}
	});
});

describe("draining", () => {
	it("readiness fails from the moment shutdown starts, before the listener closes", async () => {
		platform.services.observability.startDraining();
		const response = await fetch(`${platform.url}/readyz`);
		expect(response.status).toBe(503);
		expect(((await response.json()) as { message: string }).message).toBe("Draining: the server is shutting down");
	});
});
