import { describe, expect, it } from "vitest";
import { type ProviderStandIn } from "../helpers/provider-stand-in";
import { type TestPlatform } from "../helpers/platform";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { GENERATION_SURFACES } from "./generation-surfaces";
import { PROVIDER_KEY, workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const call = async (path: string, key: string, body: unknown, idempotencyKey: string) => {
	const response = await platform.request("POST", path, { key, body, headers: { "idempotency-key": idempotencyKey } });
	return { status: response.status, headers: response.headers, text: await response.text() };
};

describe.each(GENERATION_SURFACES)("Idempotency-Key on generations through $name", (surface) => {
	it("replays the stored answer for the same key and body without calling the provider again", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "only once" });
		const first = await call(surface.path, apiKey, surface.body(), "idem-execute-1");
		const second = await call(surface.path, apiKey, surface.body(), "idem-execute-1");
		expect(first.status).toBe(200);
		expect(second.status).toBe(200);
		expect(second.text).toBe(first.text);
		expect(surface.content(JSON.parse(second.text))).toBe("only once");
		expect(second.headers.get("idempotent-replayed")).toBe("true");
		expect(second.headers.get("content-type")).toContain("application/json");
		expect(standIn.requests).toHaveLength(1);
	});

	it("replays a whole SSE stream, event for event", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["a", "b"] });
		const first = await call(surface.streamPath, apiKey, surface.body({ stream: true }), "idem-stream-1");
		const second = await call(surface.streamPath, apiKey, surface.body({ stream: true }), "idem-stream-1");
		expect(surface.streamCompleted(first.text)).toBe(true);
		expect(second.text).toBe(first.text);
		expect(second.headers.get("content-type")).toBe("text/event-stream");
		expect(standIn.requests).toHaveLength(1);
	});

	it("does not store a stream that ended in an error event: the same key runs again", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["a", "b"], failAfterChunks: 1 }, { kind: "completion", content: ["a", "b"] });
		const failed = await call(surface.streamPath, apiKey, surface.body({ stream: true }), "idem-stream-failed");
		expect(failed.text).toMatch(/(^|\n)event: error\n/);
		const retried = await call(surface.streamPath, apiKey, surface.body({ stream: true }), "idem-stream-failed");
		expect(surface.streamCompleted(retried.text)).toBe(true);
		expect(retried.headers.get("idempotent-replayed")).toBeNull();
		expect(standIn.requests).toHaveLength(2);
	});

	it("answers 409 IDEMPOTENCY_KEY_CONFLICT for the same key with a different body", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await call(surface.path, apiKey, surface.body(), "idem-conflict");
		const other = await call(surface.path, apiKey, surface.body({ model: "gpt-4o" }), "idem-conflict");
		expect(other.status).toBe(409);
		expect(surface.error(JSON.parse(other.text)).code).toBe("IDEMPOTENCY_KEY_CONFLICT");
		expect(standIn.requests).toHaveLength(1);
	});

	it("runs a concurrent duplicate never: the second gets 409 saying the first is in progress", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		let release = () => {};
		standIn.script({ kind: "completion", content: "slow", holdUntil: new Promise<void>((resolve) => (release = resolve)) });
		// The first request is at the provider, so its key is claimed and it is still running.
		const arrived = standIn.nextRequest();
		const first = call(surface.path, apiKey, surface.body(), "idem-concurrent");
		await arrived;
		const second = await call(surface.path, apiKey, surface.body(), "idem-concurrent");
		expect(second.status).toBe(409);
		expect(surface.error(JSON.parse(second.text)).message).toMatch(/in progress/);
		release();
		expect((await first).status).toBe(200);
		expect(standIn.requests).toHaveLength(1);
	});

	it("releases the key after a 5xx so a retry really runs", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script(...Array.from({ length: surface.failedAttempts }, () => ({ kind: "error" as const, status: 500 })), { kind: "completion", content: "second try" });
		const failed = await call(surface.path, apiKey, surface.body(), "idem-retry");
		expect(failed.status).toBe(502);
		const retried = await call(surface.path, apiKey, surface.body(), "idem-retry");
		expect(retried.status).toBe(200);
		expect(surface.content(JSON.parse(retried.text))).toBe("second try");
		expect(standIn.requests).toHaveLength(surface.failedAttempts + 1);
	});

	it("stores only successes: after a 400 for a missing credential, the same key runs once the credential exists", async () => {
		const workspace = await platform.createWorkspace();
		const refused = await call(surface.path, workspace.apiKey, surface.body(), "idem-after-400");
		expect(refused.status).toBe(400);
		expect(surface.error(JSON.parse(refused.text)).message).toContain("openai");
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: PROVIDER_KEY, baseUrl: standIn.baseUrl });
		standIn.script({ kind: "completion", content: "now it runs" });
		const ran = await call(surface.path, workspace.apiKey, surface.body(), "idem-after-400");
		expect(ran.status).toBe(200);
		expect(ran.headers.get("idempotent-replayed")).toBeNull();
		expect(surface.content(JSON.parse(ran.text))).toBe("now it runs");
		expect(standIn.requests).toHaveLength(1);
	});

	it("never claims a key for a body that fails validation", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const invalid = await call(surface.path, apiKey, surface.body({ messages: [] }), "idem-invalid");
		expect(invalid.status).toBe(400);
		expect(surface.error(JSON.parse(invalid.text)).code).toBe("VALIDATION_ERROR");
		const valid = await call(surface.path, apiKey, surface.body(), "idem-invalid");
		expect(valid.status).toBe(200);
		expect(standIn.requests).toHaveLength(1);
	});

	it("scopes keys to the workspace", async () => {
		const one = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const two = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await call(surface.path, one.apiKey, surface.body(), "idem-shared-name");
		const other = await call(surface.path, two.apiKey, surface.body(), "idem-shared-name");
		expect(other.status).toBe(200);
		expect(other.headers.get("idempotent-replayed")).toBeNull();
		expect(standIn.requests).toHaveLength(2);
	});
});

describe("Idempotency-Key on knowledge routes", () => {
	it("replays knowledge creates too: the same key creates one source", async () => {
		const workspace = await platform.createWorkspace();
		const first = await call("/knowledge/sources", workspace.apiKey, { name: "Handbook" }, "idem-source");
		const second = await call("/knowledge/sources", workspace.apiKey, { name: "Handbook" }, "idem-source");
		expect(first.status).toBe(201);
		expect(second.status).toBe(201);
		expect(second.headers.get("idempotent-replayed")).toBe("true");
		expect(JSON.parse(second.text).id).toBe(JSON.parse(first.text).id);
		const list = await platform.request("GET", "/knowledge/sources", { key: workspace.apiKey });
		expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
		const conflict = await call("/knowledge/sources", workspace.apiKey, { name: "Other" }, "idem-source");
		expect(conflict.status).toBe(409);
	});
});
