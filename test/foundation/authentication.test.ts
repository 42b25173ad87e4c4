import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../server/modules/api-keys/revoke-api-key";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

let platform: TestPlatform;
let workspace: TestWorkspace;

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
});
afterAll(() => platform?.stop());

async function expectEnvelope(response: Response, status: number, code: string) {
	const body = await response.json();
	expect(response.status).toBe(status);
	expect(body).toMatchObject({ code, status });
	expect(typeof body.message).toBe("string");
	expect(body.fields).toBeUndefined();
	expect(response.headers.get("x-request-id")).toMatch(/\S{8,}/);
	return body;
}

describe("spec authentication table", () => {
	it("401 UNAUTHENTICATED when the Authorization header is missing, with a Bearer challenge", async () => {
		const response = await platform.request("GET", "/knowledge/sources");
		await expectEnvelope(response, 401, "UNAUTHENTICATED");
		expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
	});

	it.each([
		["another scheme", "Basic dXNlcjpwYXNz"],
		["a token without scheme", "csk_live_abc"],
		["Bearer with nothing after it", "Bearer"],
		["Bearer followed by spaces only", "Bearer    "],
		["an empty header", ""],
		["two tokens", "Bearer csk_live_a csk_live_b"],
	])("401 UNAUTHENTICATED for %s", async (_label, header) => {
		const response = await platform.request("GET", "/knowledge/sources", { headers: { authorization: header } });
		await expectEnvelope(response, 401, "UNAUTHENTICATED");
	});

	it("401 INVALID_CREDENTIALS for an unknown key with the right prefix", async () => {
		const response = await platform.request("GET", "/knowledge/sources", { key: `csk_live_${"x".repeat(43)}` });
		await expectEnvelope(response, 401, "INVALID_CREDENTIALS");
	});

	it("401 INVALID_CREDENTIALS for a key without the csk_live_ prefix, even if otherwise real", async () => {
		const realSecret = workspace.apiKey.slice("csk_live_".length);
		for (const key of [realSecret, `csk_test_${realSecret}`, `sk-${realSecret}`]) {
			await expectEnvelope(await platform.request("GET", "/knowledge/sources", { key }), 401, "INVALID_CREDENTIALS");
		}
	});

	it("accepts the scheme case-insensitively", async () => {
		const response = await platform.request("GET", "/knowledge/sources", { headers: { authorization: `bearer ${workspace.apiKey}` } });
		expect(response.status).toBe(200);
	});

	it("revocation takes effect on the very next request", async () => {
		const { id, key } = await workspace.createKey(["knowledge:read"]);
		expect((await platform.request("GET", "/knowledge/sources", { key })).status).toBe(200);
		await revokeApiKey(platform.operator(), { apiKeyId: id });
		await expectEnvelope(await platform.request("GET", "/knowledge/sources", { key }), 401, "INVALID_CREDENTIALS");
	});

	it("403 FORBIDDEN when the key lacks the scope the endpoint requires", async () => {
		const runtimeOnly = await workspace.createKey(["runtime:execute"]);
		const readOnly = await workspace.createKey(["knowledge:read"]);
		const writeOnly = await workspace.createKey(["knowledge:write"]);
		const create = { body: { name: "Docs" } };

		await expectEnvelope(await platform.request("GET", "/knowledge/sources", { key: runtimeOnly.key }), 403, "FORBIDDEN");
		await expectEnvelope(await platform.request("POST", "/knowledge/sources", { key: runtimeOnly.key, ...create }), 403, "FORBIDDEN");
		await expectEnvelope(await platform.request("POST", "/knowledge/sources", { key: readOnly.key, ...create }), 403, "FORBIDDEN");
		await expectEnvelope(await platform.request("GET", "/knowledge/sources", { key: writeOnly.key }), 403, "FORBIDDEN");

		expect((await platform.request("GET", "/knowledge/sources", { key: readOnly.key })).status).toBe(200);
		expect((await platform.request("POST", "/knowledge/sources", { key: writeOnly.key, ...create })).status).toBe(201);
	});

	it("the runtime routes need runtime:execute, and answer the same 401 table", async () => {
		const knowledgeOnly = await workspace.createKey(["knowledge:read", "knowledge:write"]);
		const body = { providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
		for (const path of ["/runtime/execute", "/runtime/stream", "/runtime/assistants/support-bot", "/runtime/assistants/support-bot/stream"]) {
			const runBody = path.includes("assistants") ? { input: "hi" } : body;
			await expectEnvelope(await platform.request("POST", path, { body: runBody }), 401, "UNAUTHENTICATED");
			await expectEnvelope(await platform.request("POST", path, { body: runBody, key: `csk_live_${"q".repeat(43)}` }), 401, "INVALID_CREDENTIALS");
			await expectEnvelope(await platform.request("POST", path, { body: runBody, key: knowledgeOnly.key }), 403, "FORBIDDEN");
		}
	});

	it("checks credentials before reading the body: a stranger's malformed JSON is still 401", async () => {
		const response = await platform.request("POST", "/knowledge/sources", {
			headers: { "content-type": "application/json" },
			key: `csk_live_${"y".repeat(43)}`,
		});
		await expectEnvelope(response, 401, "INVALID_CREDENTIALS");
	});

	it("the health check needs no key", async () => {
		const response = await platform.request("GET", "/healthz");
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ status: "ok", database: "ok" });
	});
});

describe("workspace isolation", () => {
	it("a key never sees another workspace's sources: list excludes them, reads and deletes are 404", async () => {
		const other = await platform.createWorkspace();
		const created = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Private" } });
		const source = await created.json();

		const list = await (await platform.request("GET", "/knowledge/sources", { key: other.apiKey })).json();
		expect(list.data.map((item: { id: string }) => item.id)).not.toContain(source.id);
		await expectEnvelope(await platform.request("GET", `/knowledge/sources/${source.id}`, { key: other.apiKey }), 404, "NOT_FOUND");
		await expectEnvelope(await platform.request("DELETE", `/knowledge/sources/${source.id}`, { key: other.apiKey }), 404, "NOT_FOUND");

		expect((await platform.request("GET", `/knowledge/sources/${source.id}`, { key: workspace.apiKey })).status).toBe(200);
	});
});
