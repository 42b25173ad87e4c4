import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import type { AssistantConfig } from "../../server/db/entities";
import { type ProviderStandIn } from "../helpers/provider-stand-in";
import { type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const DISTINCTIVE = "The lighthouse keeper on Skellig Varra feeds the ravens at exactly seven minutes past noon.";

/** A source on the built-in embedder (the stand-in does not embed) holding one READY text document. */
function sourceWithDocument(workspace: TestWorkspace, name: string): Promise<string> {
	return sourceWithDocuments(workspace, name, [{ filename: "ravens.txt", text: `Harbour notes.\n\n${DISTINCTIVE}\n\nThe ferry runs on Tuesdays.` }]);
}

/** A source on the built-in embedder holding these text documents, READY. */
async function sourceWithDocuments(workspace: TestWorkspace, name: string, files: { filename: string; text: string }[]): Promise<string> {
	const created = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name, embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } } });
	expect(created.status).toBe(201);
	const sourceId = ((await created.json()) as { id: string }).id;
	for (const file of files) {
		const uploaded = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, {
			key: workspace.apiKey,
			body: { filename: file.filename, contentBase64: Buffer.from(file.text).toString("base64") },
		});
		expect(uploaded.status).toBe(201);
		const documentId = ((await uploaded.json()) as { id: string }).id;
		// Ingestion is a background job: poll its status with a deadline, never a fixed sleep.
		const deadline = Date.now() + 20_000;
		for (;;) {
			const response = await platform.request("GET", `/knowledge/sources/${sourceId}/documents/${documentId}`, { key: workspace.apiKey });
			const document = (await response.json()) as { status: string; failureReason: string | null };
			if (document.status === "READY") break;
			if (document.status === "FAILED") throw new Error(`ingestion failed: ${document.failureReason}`);
			if (Date.now() > deadline) throw new Error(`document still ${document.status} after 20 s`);
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
	}
	return sourceId;
}

async function deploy(workspace: TestWorkspace, slug: string, knowledge: AssistantConfig["knowledge"]) {
	const em = () => platform.operator();
	await createAssistant(em(), { workspaceId: workspace.workspaceId, slug, name: slug });
	await updateAssistantDraft(em(), {
		workspaceId: workspace.workspaceId,
		slug,
		patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: "You answer questions about the harbour.", variables: [], generation: { maxRetries: 0 }, knowledge },
	});
	const version = await createAssistantVersion(em(), { workspaceId: workspace.workspaceId, slug });
	await publishAssistantVersion(em(), { workspaceId: workspace.workspaceId, slug, version: version.version });
}

const runAssistant = (key: string, slug: string, input: string, stream = false) =>
	platform.request("POST", `/runtime/assistants/${slug}${stream ? "/stream" : ""}`, { key, body: { input } });

const systemMessages = (index: number) =>
	(standIn.requests[index].body.messages as { role: string; content: string }[]).filter((message) => message.role === "system").map((message) => message.content);

describe("deployed assistants with knowledge", () => {
	it("puts the top chunks of attached sources, with source and file names, in the prompt (JSON and stream)", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const sourceId = await sourceWithDocument(workspace, "Harbour Handbook");
		await deploy(workspace, "harbour-bot", [{ sourceId, topK: 3 }]);

		const response = await runAssistant(workspace.apiKey, "harbour-bot", "When are the ravens fed by the lighthouse keeper?");
		expect(response.status).toBe(200);
		const [prompt, context] = systemMessages(0);
		expect(prompt).toBe("You answer questions about the harbour.");
		expect(context).toContain(DISTINCTIVE);
		expect(context).toContain('source="Harbour Handbook"');
		expect(context).toContain('file="ravens.txt"');
		expect(context).toMatch(/untrusted/);
		expect((standIn.requests[0].body.messages as { role: string }[]).at(-1)).toEqual({ role: "user", content: "When are the ravens fed by the lighthouse keeper?" });

		const streamed = await runAssistant(workspace.apiKey, "harbour-bot", "ravens lighthouse keeper", true);
		expect(streamed.status).toBe(200);
		await streamed.text();
		expect(systemMessages(1)[1]).toContain(DISTINCTIVE);
	});

	it("leaves chunks unrelated to the input out of the prompt by default (relevance floor 0.25), and minScore 0 lets them in", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const warranty = "The espresso machine warranty lasts two years and covers the pump and the boiler.";
		const laundry = "The laundry machine in the basement is out of order until Friday.";
		const parking = "Visitors park for free behind the north gate after six.";
		const sourceId = await sourceWithDocuments(workspace, "Office", [
			{ filename: "warranty.txt", text: warranty },
			{ filename: "laundry.txt", text: laundry },
			{ filename: "parking.txt", text: parking },
		]);
		const input = "How long does the espresso machine warranty last, and does it cover the pump?";
		// Search itself still finds the laundry note for this input, far behind the warranty (it shares one word, "machine").
		const searched = await platform.request("GET", `/knowledge/sources/${sourceId}/search?${new URLSearchParams({ query: input, topK: "3", minScore: "0" })}`, { key: workspace.apiKey });
		const scores = new Map(((await searched.json()) as { data: { filename: string; score: number }[] }).data.map((hit) => [hit.filename, hit.score]));
		expect(scores.get("warranty.txt")).toBeGreaterThanOrEqual(0.9);
		expect(scores.get("laundry.txt")).toBeGreaterThan(0);
		expect(scores.get("laundry.txt")).toBeLessThan(0.25);

		await deploy(workspace, "office-bot", [{ sourceId, topK: 3 }]);
		expect((await runAssistant(workspace.apiKey, "office-bot", input)).status).toBe(200);
		const context = systemMessages(0)[1];
		expect(context).toContain(warranty);
		expect(context).not.toContain(laundry);
		expect(context).not.toContain(parking);

		// An attachment's own minScore wins; 0 turns the floor off.
		await deploy(workspace, "everything-bot", [{ sourceId, topK: 3, minScore: 0 }]);
		expect((await runAssistant(workspace.apiKey, "everything-bot", input)).status).toBe(200);
		const unfiltered = systemMessages(1)[1];
		expect(unfiltered).toContain(warranty);
		expect(unfiltered).toContain(laundry);
	});

	it("sends no context for a version without knowledge", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await sourceWithDocument(workspace, "Unattached");
		await deploy(workspace, "plain-bot", []);
		const response = await runAssistant(workspace.apiKey, "plain-bot", "When are the ravens fed by the lighthouse keeper?");
		expect(response.status).toBe(200);
		expect(standIn.requests[0].body.messages).toEqual([
			{ role: "system", content: "You answer questions about the harbour." },
			{ role: "user", content: "When are the ravens fed by the lighthouse keeper?" },
		]);
	});

	it("skips an attached source that has since been deleted instead of failing", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const sourceId = await sourceWithDocument(workspace, "Doomed");
		await deploy(workspace, "orphan-bot", [{ sourceId, topK: 2 }]);
		const deleted = await platform.request("DELETE", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey });
		expect(deleted.status).toBeLessThan(300);
		const response = await runAssistant(workspace.apiKey, "orphan-bot", "ravens");
		expect(response.status).toBe(200);
		expect(systemMessages(0)).toEqual(["You answer questions about the harbour."]);
	});
});
