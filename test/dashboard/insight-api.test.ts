import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditEventSchema } from "../../server/db/entities";
import { createUser } from "../../server/modules/tenancy/create-user";
import { type DashboardSession, signInToDashboard } from "../helpers/dashboard-session";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";

/** The management API of the knowledge, traces and usage pages, as the dashboard calls it with a person's session. */
describe("knowledge, traces and usage over the management API", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let home: TestWorkspace;
	let other: TestWorkspace;
	let owner: DashboardSession;
	let stranger: DashboardSession;
	let viewer: DashboardSession;

	const base = () => `/management/workspaces/${home.workspaceId}`;
	const call = (session: DashboardSession, method: string, path: string, body?: unknown) => session.call(platform.url, method, path, body);
	const json = async (response: Response) => ({ status: response.status, body: await response.json() });

	beforeAll(async () => {
		platform = await startTestPlatform();
		home = await platform.createWorkspace();
		other = await platform.createWorkspace();
		const viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: home.organizationId, role: "viewer" });
		owner = await signInToDashboard(platform.url, home.ownerEmail, TEST_PASSWORD);
		stranger = await signInToDashboard(platform.url, other.ownerEmail, TEST_PASSWORD);
		viewer = await signInToDashboard(platform.url, viewerEmail, TEST_PASSWORD);
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("creates a source, uploads through the presigned flow, searches, downloads and deletes; every write audited; viewers and strangers refused", async () => {
		const created = await json(await call(owner, "POST", `${base()}/knowledge-sources`, { name: "Guide", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } }));
		expect(created).toMatchObject({ status: 201, body: { name: "Guide", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" }, documentCount: 0 } });
		const sourceId = created.body.id as string;
		const source = `${base()}/knowledge-sources/${sourceId}`;

		// A type the API does not take is refused before an upload URL is handed out.
		const refused = await json(await call(owner, "POST", `${source}/documents`, { filename: "setup.exe", contentType: "application/octet-stream", byteSize: 10 }));
		expect(refused).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", fields: [expect.objectContaining({ field: "filename" })] } });

		const text = "# Opening hours\n\nThe harbour office opens at eight.\n";
		const started = await json(await call(owner, "POST", `${source}/documents`, { filename: "hours.md", contentType: "text/markdown", byteSize: Buffer.byteLength(text) }));
		expect(started).toMatchObject({ status: 201, body: { document: { status: "PENDING" }, upload: { method: "PUT" } } });
		const put = await fetch(started.body.upload.url, { method: "PUT", headers: started.body.upload.headers, body: text });
		expect(put.status).toBeLessThan(300);
		const documentId = started.body.document.id as string;
		expect((await json(await call(owner, "POST", `${source}/documents/${documentId}/complete`))).status).toBe(200);
		await expect
			.poll(async () => (await json(await call(viewer, "GET", `${source}/documents`))).body.data[0]?.status, { timeout: 30_000, interval: 100 })
			.toBe("READY");

		const found = await json(await call(viewer, "GET", `${source}/search?query=${encodeURIComponent("when does the harbour office open")}`));
		expect(found).toMatchObject({ status: 200, body: { data: [expect.objectContaining({ documentId, filename: "hours.md", location: { headingPath: ["Opening hours"] } })] } });
		const downloaded = await json(await call(viewer, "GET", `${source}/documents/${documentId}/download`));
		expect(downloaded.body).toMatchObject({ filename: "hours.md", encoding: "text", content: text });

		// A viewer reads, and changes nothing; someone from another organization does not even see it.
		for (const [method, path, body] of [
			["POST", `${base()}/knowledge-sources`, { name: "Sneaky" }],
			["POST", `${source}/documents`, { filename: "a.md", contentType: "text/markdown", byteSize: 3 }],
			["POST", `${source}/documents/${documentId}/retry`, undefined],
			["DELETE", `${source}/documents/${documentId}`, undefined],
			["DELETE", source, undefined],
		] as const) {
			expect((await json(await call(viewer, method, path, body))).body, `${method} ${path}`).toMatchObject({ code: "FORBIDDEN" });
		}
		expect([403, 404]).toContain((await call(stranger, "GET", `${source}/documents`)).status);
		expect([403, 404]).toContain((await call(stranger, "DELETE", source)).status);

		expect((await json(await call(owner, "DELETE", `${source}/documents/${documentId}`))).body).toEqual({ id: documentId, deleted: true });
		expect((await json(await call(owner, "DELETE", source))).body).toEqual({ id: sourceId, deleted: true });
		expect((await call(owner, "GET", source)).status).toBe(404);

		// Each change is audited, under the workspace, with the person who made it.
		await expect
			.poll(async () => {
				const events = await platform.orm.em.fork().find(AuditEventSchema, { workspace: home.workspaceId, actorId: home.userId, outcome: "success" });
				return events.map((event) => event.action).sort();
			})
			.toEqual(expect.arrayContaining(["completeKnowledgeDocumentUpload", "createKnowledgeDocumentUpload", "createKnowledgeSource", "deleteKnowledgeDocument", "deleteKnowledgeSource"]));
	});

	/** Traces as the trace writer stores them, written directly so their times, assistants and outcomes are known. */
	async function insertTraces(workspaceId: string, rows: { id: string; at: string; assistant?: string; version?: string; environment?: string; kind?: string; failed?: boolean; principal?: string; latency?: number; cost?: number }[]) {
		const connection = platform.orm.em.getConnection();
		for (const row of rows) {
			await connection.execute(
				`insert into traces (id, workspace, api_key, principal_type, principal_id, kind, streamed, assistant, version, environment, provider, model, input, output,
				                     latency_ms, time_to_first_token_ms, input_tokens, output_tokens, total_tokens, cost_micro_usd, finish_reason, error_code, error_message, created_at)
				 values (?, ?, null, ?, ?, ?, false, ?, ?, ?, 'openai', 'gpt-4o-mini', null, null, ?, null, 10, 5, 15, ?, ?, ?, ?, ?)`,
				[
					row.id,
					workspaceId,
					row.principal?.startsWith("usr_") ? "user" : "api_key",
					row.principal ?? "key_a",
					row.kind ?? "assistant",
					row.assistant ?? null,
					row.version ?? null,
					row.environment ?? null,
					row.latency ?? 100,
					row.cost ?? 100,
					row.failed ? null : "stop",
					row.failed ? "PROVIDER_ERROR" : null,
					row.failed ? "The provider answered 500" : null,
					row.at,
				],
			);
		}
	}

	it("lists traces newest first in keyset pages that neither repeat nor skip, filtered by every field; usage adds them up per day", async () => {
		const day = "2026-01-10";
		const rows = Array.from({ length: 23 }, (_, index) => ({
			id: `trc_t${String(index).padStart(3, "0")}`,
			// Several traces share each instant: the id breaks the tie.
			at: `${day}T10:${String(Math.floor(index / 3)).padStart(2, "0")}:00Z`,
			assistant: index % 2 === 0 ? "ast_even" : "ast_odd",
			version: `ver_${index % 3}`,
			environment: index % 4 === 0 ? "env_staging" : "env_production",
			kind: index % 5 === 0 ? "playground" : "assistant",
			failed: index % 7 === 0,
			principal: index < 10 ? "key_a" : "usr_b",
			latency: 100 + index * 10,
		}));
		await insertTraces(home.workspaceId, rows);
		await insertTraces(other.workspaceId, [{ id: "trc_elsewhere", at: `${day}T10:30:00Z`, assistant: "ast_even" }]);
		const newestFirst = [...rows].sort((a, b) => (a.at === b.at ? b.id.localeCompare(a.id) : b.at.localeCompare(a.at))).map((row) => row.id);

		const pages: string[][] = [];
		let before: string | null = null;
		do {
			const page = await json(await call(viewer, "GET", `${base()}/traces?limit=5${before ? `&before=${before}` : ""}`));
			expect(page.status).toBe(200);
			pages.push(page.body.traces.map((trace: { id: string }) => trace.id));
			before = page.body.nextBefore;
		} while (before);
		expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
		expect(pages.flat()).toEqual(newestFirst);

		const ids = async (query: string) => (await json(await call(viewer, "GET", `${base()}/traces?limit=100&${query}`))).body.traces.map((trace: { id: string }) => trace.id).sort();
		const expected = (keep: (row: (typeof rows)[number], index: number) => boolean) => rows.filter(keep).map((row) => row.id).sort();
		expect(await ids("assistantId=ast_even")).toEqual(expected((_, index) => index % 2 === 0));
		expect(await ids("assistantId=ast_even&versionId=ver_1")).toEqual(expected((_, index) => index % 2 === 0 && index % 3 === 1));
		expect(await ids("environmentId=env_staging")).toEqual(expected((_, index) => index % 4 === 0));
		expect(await ids("kind=playground")).toEqual(expected((_, index) => index % 5 === 0));
		expect(await ids("failed=true")).toEqual(expected((_, index) => index % 7 === 0));
		expect(await ids("failed=false&principalId=usr_b")).toEqual(expected((_, index) => index % 7 !== 0 && index >= 10));
		// Asked through an MCP client (a user's connection) rather than with an API key.
		expect(await ids("principalType=user")).toEqual(expected((_, index) => index >= 10));
		expect(await ids(`since=${day}T10:05:00Z&until=${day}T10:07:00Z`)).toEqual(expected((_, index) => Math.floor(index / 3) >= 5 && Math.floor(index / 3) < 7));
		expect((await json(await call(viewer, "GET", `${base()}/traces?kind=telepathy`))).body).toMatchObject({ code: "VALIDATION_ERROR", fields: [expect.objectContaining({ field: "kind" })] });
		expect([403, 404]).toContain((await call(stranger, "GET", `${base()}/traces`)).status);

		const usage = await json(await call(viewer, "GET", `${base()}/usage?since=2026-01-09&until=2026-01-11`));
		expect(usage.status).toBe(200);
		expect(usage.body.days.map((entry: { day: string; requests: number }) => [entry.day, entry.requests])).toEqual([
			["2026-01-09", 0],
			["2026-01-10", 23],
			["2026-01-11", 0],
		]);
		// Latencies 100, 110, … 320 ms: the median is 210.
		expect(usage.body.days[1]).toMatchObject({ errors: 4, inputTokens: 230, outputTokens: 115, costMicroUsd: 2300, latencyP50Ms: 210 });
		expect(usage.body.byAssistant.map((entry: { assistantId: string; requests: number }) => [entry.assistantId, entry.requests]).sort()).toEqual([
			["ast_even", 12],
			["ast_odd", 11],
		]);
		expect(usage.body.month).toMatchObject({ quotaMicroUsd: null, spentMicroUsd: expect.any(Number) });
		expect((await json(await call(viewer, "GET", `${base()}/usage?since=2025-01-01&until=2026-01-11`))).body).toMatchObject({ code: "VALIDATION_ERROR" });
	});
});
