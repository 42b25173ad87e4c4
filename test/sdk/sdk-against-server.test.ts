import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError, PlatformClient } from "../../sdk/src/index";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

let platform: TestPlatform;
let workspace: TestWorkspace;

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
});
afterAll(() => platform?.stop());

describe("the generated SDK against the real server", () => {
	it("creates, retrieves, lists and deletes a source", async () => {
		const client = new PlatformClient({ apiKey: workspace.apiKey, baseURL: platform.url, maxRetries: 0 });
		const created = await client.knowledge.sources.create({ name: "SDK source", description: "made by the SDK" });
		expect(created).toMatchObject({ id: expect.stringMatching(/^ks_/), name: "SDK source", documentCount: 0 });
		expect(await client.knowledge.sources.retrieve(created.id)).toEqual(created);
		const list = await client.knowledge.sources.list({ limit: 10 });
		expect(list.data.map((source) => source.id)).toContain(created.id);
		expect(await client.knowledge.sources.delete(created.id)).toEqual({ id: created.id, deleted: true });
		await expect(client.knowledge.sources.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
	});

	it("maps the server's envelopes to typed errors with code, fields and request id", async () => {
		const client = new PlatformClient({ apiKey: workspace.apiKey, baseURL: platform.url, maxRetries: 0 });
		const invalid = await client.knowledge.sources.create({ name: "" }).catch((error) => error);
		expect(invalid).toBeInstanceOf(BadRequestError);
		expect(invalid.code).toBe("VALIDATION_ERROR");
		expect(invalid.fields).toEqual([{ field: "name", issue: expect.any(String) }]);
		expect(invalid.requestId).toMatch(/^req_/);

		const stranger = new PlatformClient({ apiKey: `csk_live_${"z".repeat(43)}`, baseURL: platform.url, maxRetries: 0 });
		const unauthenticated = await stranger.knowledge.sources.list().catch((error) => error);
		expect(unauthenticated).toBeInstanceOf(AuthenticationError);
		expect(unauthenticated.code).toBe("INVALID_CREDENTIALS");

		const runtimeOnly = await workspace.createKey(["runtime:execute"]);
		const limited = new PlatformClient({ apiKey: runtimeOnly.key, baseURL: platform.url, maxRetries: 0 });
		await expect(limited.knowledge.sources.list()).rejects.toBeInstanceOf(PermissionDeniedError);
	});
});
