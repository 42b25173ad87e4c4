import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { createUser } from "../../server/modules/tenancy/create-user";
import { type DashboardSession, signInToDashboard } from "../helpers/dashboard-session";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { parseSseFrames, type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

/** The management API of the assistant pages, as the dashboard calls it with a person's session. */
describe("assistants, environments and the playground over the management API", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;
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
		standIn = await startProviderStandIn();
		home = await platform.createWorkspace();
		other = await platform.createWorkspace();
		await setProviderCredential(platform.operator(), { workspaceId: home.workspaceId, provider: "openai", apiKey: "sk-standin-0123456789", baseUrl: standIn.baseUrl });
		const viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: home.organizationId, role: "viewer" });
		owner = await signInToDashboard(platform.url, home.ownerEmail, TEST_PASSWORD);
		stranger = await signInToDashboard(platform.url, other.ownerEmail, TEST_PASSWORD);
		viewer = await signInToDashboard(platform.url, viewerEmail, TEST_PASSWORD);
		// The stand-in answers with the system prompt it was sent: which configuration answered is visible in the answer.
		standIn.responder = (request) => {
			const messages = request.body.messages as { role: string; content: string }[];
			return { kind: "completion", content: ["Answer under: ", messages.find((message) => message.role === "system")?.content ?? "(no prompt)"] };
		};
	});
	afterAll(async () => {
		await standIn?.close();
		await platform?.stop();
	});

	it("creates, edits, versions, publishes and rolls back an assistant that the runtime then serves", async () => {
		const created = await json(await call(owner, "POST", `${base()}/assistants`, { slug: "helper", name: "  Helper  ", description: "Answers" }));
		expect(created).toMatchObject({ status: 201, body: { slug: "helper", name: "Helper" } });

		const draft = await json(await call(owner, "GET", `${base()}/assistants/helper/draft`));
		expect(draft.body.config).toMatchObject({ provider: "openai", systemPrompt: "", variables: [] });

		const patched = await json(
			await call(owner, "PATCH", `${base()}/assistants/helper/draft`, {
				patch: { systemPrompt: "First prompt for {{name}}", variables: [{ name: "name", type: "string", required: true }], generation: { temperature: 0.3 } },
			}),
		);
		expect(patched).toMatchObject({ status: 200, body: { config: { systemPrompt: "First prompt for {{name}}", generation: { temperature: 0.3 } } } });
		expect((await json(await call(owner, "POST", `${base()}/assistants/helper/versions`, { note: "First" }))).body).toMatchObject({ version: 1 });
		expect((await json(await call(owner, "POST", `${base()}/assistants/helper/publish`, { version: 1 }))).body).toMatchObject({ environment: "production", version: 1, previousVersion: null });

		const run = () => platform.request("POST", "/runtime/assistants/helper", { key: home.apiKey, body: { input: "Hi", variables: { name: "Ada" } } }).then(json);
		expect((await run()).body).toMatchObject({ message: { content: "Answer under: First prompt for Ada" }, assistant: { version: 1 } });

		await call(owner, "PATCH", `${base()}/assistants/helper/draft`, { patch: { systemPrompt: "Second prompt for {{name}}" } });
		await call(owner, "POST", `${base()}/assistants/helper/versions`, { note: "Second" });
		await call(owner, "POST", `${base()}/assistants/helper/publish`, { version: 2, environment: "production" });
		expect((await run()).body).toMatchObject({ message: { content: "Answer under: Second prompt for Ada" }, assistant: { version: 2 } });

		const versions = await json(await call(owner, "GET", `${base()}/assistants/helper/versions`));
		expect(versions.body.data.map((version: { version: number; note: string }) => [version.version, version.note])).toEqual([
			[2, "Second"],
			[1, "First"],
		]);
		const first = await json(await call(owner, "GET", `${base()}/assistants/helper/versions/1`));
		expect(first.body.config.systemPrompt).toBe("First prompt for {{name}}");

		const rolledBack = await json(await call(owner, "POST", `${base()}/assistants/helper/rollback`, {}));
		expect(rolledBack.body).toMatchObject({ version: 1, previousVersion: 2 });
		expect((await run()).body).toMatchObject({ message: { content: "Answer under: First prompt for Ada" }, assistant: { version: 1 } });

		const history = await json(await call(owner, "GET", `${base()}/assistants/helper/deployments?environment=production`));
		expect(history.body.data.map((entry: { action: string; version: number }) => `${entry.action} ${entry.version}`)).toEqual(["rollback 1", "publish 2", "publish 1"]);
		expect(history.body.data[0].actorUserId).toBe(home.userId);

		const listed = await json(await call(owner, "GET", `${base()}/assistants`));
		expect(listed.body.data).toEqual([expect.objectContaining({ slug: "helper", deployments: [{ environment: "production", version: 1 }] })]);

		// Archived: gone from the list and from the runtime; restored: served again as before.
		await call(owner, "POST", `${base()}/assistants/helper/archive`);
		expect((await json(await call(owner, "GET", `${base()}/assistants`))).body.data).toEqual([]);
		expect((await json(await call(owner, "GET", `${base()}/assistants?includeArchived=true`))).body.data).toEqual([expect.objectContaining({ slug: "helper", archived: true })]);
		expect((await run()).body).toMatchObject({ code: "DEPLOYMENT_NOT_FOUND" });
		await call(owner, "POST", `${base()}/assistants/helper/restore`);
		expect((await run()).body).toMatchObject({ assistant: { version: 1 } });
	});

	it("names the offending field of every refused input", async () => {
		const badSlug = await json(await call(owner, "POST", `${base()}/assistants`, { slug: "Not A Slug", name: "" }));
		expect(badSlug).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
		expect(badSlug.body.fields).toEqual(
			expect.arrayContaining([
				{ field: "slug", issue: "Lowercase letters, digits and dashes, at most 63 characters" },
				{ field: "name", issue: "Required" },
			]),
		);
		await call(owner, "POST", `${base()}/assistants`, { slug: "fields", name: "Fields" });
		const taken = await json(await call(owner, "POST", `${base()}/assistants`, { slug: "fields", name: "Again" }));
		expect(taken.body.fields).toEqual([{ field: "slug", issue: "An assistant 'fields' already exists in this workspace" }]);

		const badDraft = await json(
			await call(owner, "PATCH", `${base()}/assistants/fields/draft`, {
				patch: { variables: [{ name: "tier", type: "number", default: "gold" }], knowledge: [{ sourceId: "ks_1", topK: 500 }], generation: { temperature: 9 } },
			}),
		);
		expect(badDraft.status).toBe(400);
		expect(badDraft.body.fields.map((field: { field: string }) => field.field).sort()).toEqual(["patch.generation.temperature", "patch.knowledge[0].topK", "patch.variables[0].default"]);
		const unknownVersion = await json(await call(owner, "POST", `${base()}/assistants/fields/publish`, { version: 7 }));
		expect(unknownVersion.body).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "version", issue: "Assistant 'fields' has no version 7" }] });
		const badVersionPath = await json(await call(owner, "GET", `${base()}/assistants/fields/versions/first`));
		expect(badVersionPath.body).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "version" }] });
		const badEnvironment = await json(await call(owner, "POST", `${base()}/environments`, { slug: "Staging!", name: "Staging" }));
		expect(badEnvironment.body.fields).toEqual([{ field: "slug", issue: "Lowercase letters, digits and dashes, at most 63 characters" }]);
	});

	it("streams a playground turn on the saved draft or a version, names its trace, and the trace gives tokens, latency and cost", async () => {
		await call(owner, "POST", `${base()}/assistants`, { slug: "play", name: "Play" });
		await call(owner, "PATCH", `${base()}/assistants/play/draft`, { patch: { systemPrompt: "Draft one, {{who}}", variables: [{ name: "who", type: "string", default: "you" }] } });
		await call(owner, "POST", `${base()}/assistants/play/versions`, {});
		await call(owner, "PATCH", `${base()}/assistants/play/draft`, { patch: { systemPrompt: "Draft two, {{who}}" } });

		const onDraft = await call(owner, "POST", `${base()}/assistants/play/playground`, { input: "Hello", variables: { who: "Ada" } });
		expect(onDraft.status).toBe(200);
		expect(onDraft.headers.get("content-type")).toBe("text/event-stream");
		const frames = parseSseFrames(await onDraft.text());
		expect(frames.filter((frame) => frame.event === "delta").map((frame) => (frame.data as { content: string }).content).join("")).toBe("Answer under: Draft two, Ada");
		const done = frames.find((frame) => frame.event === "done")?.data as { traceId: string; ranOn: string };
		expect(done).toMatchObject({ finishReason: "stop", ranOn: "draft", traceId: expect.stringMatching(/^trace_/) });

		const trace = await json(await call(owner, "GET", `${base()}/traces/${done.traceId}`));
		expect(trace.body).toMatchObject({ kind: "playground", streamed: true, inputTokens: 11, outputTokens: 2, principalType: "session", principalId: home.userId });
		expect(trace.body.costMicroUsd).toBeGreaterThan(0);
		expect(trace.body.latencyMs).toBeGreaterThanOrEqual(0);

		const onVersion = parseSseFrames(await (await call(owner, "POST", `${base()}/assistants/play/playground`, { input: "Hello", version: 1 })).text());
		expect(onVersion.filter((frame) => frame.event === "delta").map((frame) => (frame.data as { content: string }).content).join("")).toBe("Answer under: Draft one, you");
		expect(onVersion.find((frame) => frame.event === "done")?.data).toMatchObject({ ranOn: 1 });

		// Refused before anything streams: the envelope, naming the field.
		const missing = await json(await call(owner, "POST", `${base()}/assistants/play/playground`, { input: "Hello", variables: { who: 3 } }));
		expect(missing).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", fields: [{ field: "variables.who", issue: "Expected a string, got a number" }] } });
		await call(owner, "PATCH", `${base()}/assistants/play/draft`, { patch: { provider: "mistral", model: "mistral-small-latest" } });
		const noCredential = await json(await call(owner, "POST", `${base()}/assistants/play/playground`, { input: "Hello" }));
		expect(noCredential).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST", message: expect.stringContaining("mistral") } });
	});

	it("cancels the provider request when the person leaves the playground mid-answer", async () => {
		await call(owner, "POST", `${base()}/assistants`, { slug: "leaver", name: "Leaver" });
		standIn.script({ kind: "completion", content: ["one ", "two ", "three"], hangAfterChunks: 1 });
		const abort = new AbortController();
		const response = await fetch(`${platform.url}${base()}/assistants/leaver/playground`, {
			method: "POST",
			headers: { cookie: owner.cookie, "x-csrf-token": owner.csrf, "content-type": "application/json" },
			body: JSON.stringify({ input: "Go" }),
			signal: abort.signal,
		});
		const reader = (response.body as ReadableStream<Uint8Array>).getReader();
		expect(new TextDecoder().decode((await reader.read()).value)).toContain('"one "');
		const upstream = standIn.requests.at(-1);
		abort.abort();
		expect(upstream).toBeDefined();
		await standIn.waitForClientClose(upstream as NonNullable<typeof upstream>, 10_000);
	});

	it("lists the providers an assistant can use, marking those the workspace holds a credential for", async () => {
		const providers = await json(await call(viewer, "GET", `${base()}/assistant-providers`));
		expect(providers.body.data).toEqual([
			{ provider: "openai", configured: true },
			{ provider: "mistral", configured: false },
			{ provider: "openai-compatible", configured: false },
		]);
	});

	it("creates, renames and deletes environments with the tools' rules", async () => {
		expect((await json(await call(owner, "POST", `${base()}/environments`, { slug: "staging", name: "Staging" }))).status).toBe(201);
		expect((await json(await call(owner, "PATCH", `${base()}/environments/staging`, { name: "Pre-production", description: null }))).body).toMatchObject({ slug: "staging", name: "Pre-production" });
		const production = await json(await call(owner, "DELETE", `${base()}/environments/production`));
		expect(production).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST", message: expect.stringContaining("production") } });

		await call(owner, "POST", `${base()}/assistants`, { slug: "staged", name: "Staged" });
		await call(owner, "POST", `${base()}/assistants/staged/versions`, {});
		await call(owner, "POST", `${base()}/assistants/staged/publish`, { version: 1, environment: "staging" });
		const serving = await json(await call(owner, "DELETE", `${base()}/environments/staging`));
		expect(serving).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST", message: expect.stringContaining("'staged'") } });
		await call(owner, "POST", `${base()}/assistants/staged/archive`);
		expect((await json(await call(owner, "DELETE", `${base()}/environments/staging`))).body).toEqual({ slug: "staging", deleted: true });
		expect((await json(await call(owner, "GET", `${base()}/environments`))).body.data.map((environment: { slug: string }) => environment.slug)).toEqual(["production"]);
	});

	it("lets a viewer read everything and refuses every change with 403", async () => {
		await call(owner, "POST", `${base()}/assistants`, { slug: "watched", name: "Watched" });
		await call(owner, "POST", `${base()}/assistants/watched/versions`, {});
		for (const path of ["/assistants", "/assistants/watched", "/assistants/watched/draft", "/assistants/watched/versions", "/assistants/watched/versions/1", "/assistants/watched/deployments", "/environments", "/knowledge-sources"]) {
			expect((await call(viewer, "GET", `${base()}${path}`)).status, path).toBe(200);
		}
		const writes: [string, string, unknown][] = [
			["POST", "/assistants", { slug: "viewer-made", name: "Nope" }],
			["PATCH", "/assistants/watched", { name: "Renamed" }],
			["PATCH", "/assistants/watched/draft", { patch: { systemPrompt: "Mine now" } }],
			["POST", "/assistants/watched/versions", {}],
			["POST", "/assistants/watched/publish", { version: 1 }],
			["POST", "/assistants/watched/rollback", {}],
			["POST", "/assistants/watched/archive", undefined],
			["POST", "/assistants/watched/restore", undefined],
			["POST", "/assistants/watched/playground", { input: "Hi" }],
			["POST", "/environments", { slug: "viewers", name: "Viewers" }],
			["PATCH", "/environments/production", { name: "Mine" }],
			["DELETE", "/environments/production", undefined],
		];
		for (const [method, path, body] of writes) {
			const refused = await json(await call(viewer, method, `${base()}${path}`, body));
			expect(refused, `${method} ${path}`).toMatchObject({ status: 403, body: { code: "FORBIDDEN", message: "Your role in this organization (viewer) cannot do this; it needs member or above" } });
		}
		const draft = await json(await call(owner, "GET", `${base()}/assistants/watched/draft`));
		expect(draft.body.config.systemPrompt).toBe("");
		expect((await json(await call(owner, "GET", `${base()}/assistants/watched`))).body).toMatchObject({ name: "Watched", deployments: [] });
	});

	it("answers NOT_FOUND for another organization's workspace, whatever the route", async () => {
		await call(owner, "POST", `${base()}/assistants`, { slug: "private", name: "Private" });
		const tries: [string, string, unknown][] = [
			["GET", "/assistants", undefined],
			["GET", "/assistants/private", undefined],
			["GET", "/assistants/private/draft", undefined],
			["PATCH", "/assistants/private/draft", { patch: { systemPrompt: "Taken over" } }],
			["POST", "/assistants/private/versions", {}],
			["POST", "/assistants/private/playground", { input: "Hi" }],
			["GET", "/environments", undefined],
			["DELETE", "/environments/production", undefined],
			["GET", "/assistant-providers", undefined],
			["GET", "/knowledge-sources", undefined],
			["GET", "/traces/trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D", undefined],
		];
		for (const [method, path, body] of tries) {
			const refused = await json(await call(stranger, method, `${base()}${path}`, body));
			expect(refused, `${method} ${path}`).toMatchObject({ status: 404, body: { code: "NOT_FOUND", message: "Workspace not found" } });
		}
		// Their own workspace has no such assistant either.
		const own = await json(await call(stranger, "GET", `/management/workspaces/${other.workspaceId}/assistants/private`));
		expect(own).toMatchObject({ status: 404, body: { code: "ASSISTANT_NOT_FOUND" } });
	});

	it("refuses a signed-out caller and a change without the session's CSRF token", async () => {
		const signedOut = await fetch(`${platform.url}${base()}/assistants`);
		expect(await json(signedOut)).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
		const withoutToken = await fetch(`${platform.url}${base()}/assistants`, {
			method: "POST",
			headers: { cookie: owner.cookie, "content-type": "application/json" },
			body: JSON.stringify({ slug: "csrf", name: "Csrf" }),
		});
		expect(withoutToken.status).toBe(403);
	});
});
