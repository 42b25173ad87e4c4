import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTENER_APPLICATION_NAME } from "../../server/db/notifications";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { rollbackAssistantDeployment } from "../../server/modules/assistants/rollback-assistant-deployment";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "../helpers/embeddings-stand-in";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { search, uploadDocument, waitForDocument } from "../knowledge/knowledge-helpers";

describe("two platforms in one process", () => {
	let embeddings: EmbeddingsStandIn;
	const platforms: TestPlatform[] = [];
	beforeAll(async () => {
		embeddings = await startEmbeddingsStandIn();
		// Different secret keys: a service shared between them (as module-level search dependencies
		// were) would decrypt one platform's provider credential with the other's key.
		platforms.push(await startTestPlatform({ secretKey: "first-platform-secret-0123456789abcdef" }));
		platforms.push(await startTestPlatform({ secretKey: "second-platform-secret-0123456789abcdef" }));
	});
	afterAll(async () => {
		for (const platform of platforms) await platform.stop();
		await embeddings?.close();
	});

	it("each ingests and searches with its own services and settings", async () => {
		for (const [index, platform] of platforms.entries()) {
			const workspace = await platform.createWorkspace();
			await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: `sk-platform-${index}-0123456789`, baseUrl: embeddings.baseUrl });
			const created = await platform.request("POST", "/knowledge/sources", {
				key: workspace.apiKey,
				body: { name: "Own", embeddingModel: { provider: "openai", model: "text-embedding-3-small" } },
			});
			const sourceId = ((await created.json()) as { id: string }).id;
			const word = `platform${index}marker`;
			const document = await uploadDocument(platform, workspace.apiKey, sourceId, "own.txt", `The ${word} lives here only.\n`);
			expect((await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).status).toBe("READY");
			const [hit] = await search(platform, workspace.apiKey, sourceId, { query: word });
			expect(hit?.documentId).toBe(document.id);
		}
		// Each platform's embedder call carried its own workspace's key, decrypted with its own secret.
		expect(new Set(embeddings.requests.map((request) => request.authorization))).toEqual(
			new Set(["Bearer sk-platform-0-0123456789", "Bearer sk-platform-1-0123456789"]),
		);
		expect(platforms[0].services.search).not.toBe(platforms[1].services.search);
	});
});

describe("two instances on one database", () => {
	let first: TestPlatform;
	let second: TestPlatform;
	let standIn: ProviderStandIn;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		standIn = await startProviderStandIn();
		first = await startTestPlatform();
		second = await startTestPlatform({ databaseUrl: first.databaseUrl });
		workspace = await first.createWorkspace();
		await setProviderCredential(first.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-two-instances-0123456789", baseUrl: standIn.baseUrl });
		const { workspaceId } = workspace;
		await createAssistant(first.operator(), { workspaceId, slug: "moving", name: "Moving" });
		for (const model of ["model-one", "model-two", "model-three"]) {
			await updateAssistantDraft(first.operator(), { workspaceId, slug: "moving", patch: { provider: "openai", model, systemPrompt: "", variables: [], generation: { maxRetries: 0 } } });
			await createAssistantVersion(first.operator(), { workspaceId, slug: "moving" });
		}
		await publishAssistantVersion(first.operator(), { workspaceId, slug: "moving", version: 1 });
	});
	afterAll(async () => {
		await second?.stop();
		await first?.stop();
		await standIn?.close();
	});

	/** The model the second instance serves for the assistant right now. */
	const servedBySecond = async () => {
		const answered = standIn.nextRequest();
		const response = await second.request("POST", "/runtime/assistants/moving", { key: workspace.apiKey, body: { input: "Which model?" } });
		expect(response.status).toBe(200);
		return (await answered).body.model;
	};

	it("serves a publish or rollback made through the other instance on the very next call", async () => {
		expect(second.services.notifications.listening).toBe(true);
		expect(await servedBySecond()).toBe("model-one");
		// Cached now: served without reading the deployment again.
		expect(await servedBySecond()).toBe("model-one");

		await publishAssistantVersion(first.operator(), { workspaceId: workspace.workspaceId, slug: "moving", version: 2 });
		expect(await servedBySecond()).toBe("model-two");
		await rollbackAssistantDeployment(first.operator(), { workspaceId: workspace.workspaceId, slug: "moving" });
		expect(await servedBySecond()).toBe("model-one");
	});

	it("reads through while its notification connection is down, and caches again once it reconnects", async () => {
		const lost = new Promise<void>((resolve) => second.services.notifications.onReset(resolve));
		// Terminate the second instance's listener connection, as a database failover would.
		const [row] = await first.orm.em
			.fork()
			.getConnection()
			.execute<{ terminated: boolean }[]>("select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = ? and pid = ?", [
				LISTENER_APPLICATION_NAME,
				second.services.notifications.backendPid,
			]);
		expect(row.terminated).toBe(true);
		await lost;
		expect(second.services.notifications.listening).toBe(false);

		// Disconnected: a change made elsewhere is still served on the next call (nothing is cached).
		await publishAssistantVersion(first.operator(), { workspaceId: workspace.workspaceId, slug: "moving", version: 3 });
		expect(await servedBySecond()).toBe("model-three");

		await second.services.notifications.whenListening();
		expect(await servedBySecond()).toBe("model-three");
		await publishAssistantVersion(first.operator(), { workspaceId: workspace.workspaceId, slug: "moving", version: 2 });
		expect(await servedBySecond()).toBe("model-two");
	});
});

