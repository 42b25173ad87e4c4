import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

const fullLoads = (platform: TestPlatform) => platform.services.search.lexical.statistics.fullLoads + platform.services.search.vectors.statistics.fullLoads;

/**
 * Two server processes' worth of platforms on one database and one object store, as two instances
 * behind a load balancer: what one ingests or deletes, the other's next search shows, and the
 * other brings its structures up to date document by document (no full load of the source).
 */
describe("two instances on one database", () => {
	let first: TestPlatform;
	let second: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;

	beforeAll(async () => {
		first = await startTestPlatform();
		second = await startTestPlatform({ databaseUrl: first.databaseUrl, dataDirectory: first.dataDirectory });
		workspace = await first.createWorkspace();
		sourceId = await createSource(first, workspace.apiKey, "Shared");
	}, 60_000);

	afterAll(async () => {
		await second?.stop();
		await first?.stop();
	});

	it("a document ingested or deleted through one is found, or gone, in the other's next search, without a full rebuild", async () => {
		const lighthouse = await uploadDocument(first, workspace.apiKey, sourceId, "lighthouse.txt", "The lighthouse keeper logs every passing ship in a leather journal.");
		await waitForDocument(first, workspace.apiKey, sourceId, lighthouse.id, ["READY"]);
		expect((await search(second, workspace.apiKey, sourceId, { query: "lighthouse keeper journal" })).map((hit) => hit.documentId)).toContain(lighthouse.id);
		const loadsAfterFirstSearch = fullLoads(second);

		const orchard = await uploadDocument(first, workspace.apiKey, sourceId, "orchard.txt", "The orchard grows quinces and medlars along the southern wall.");
		await waitForDocument(first, workspace.apiKey, sourceId, orchard.id, ["READY"]);
		expect((await search(second, workspace.apiKey, sourceId, { query: "quinces medlars orchard" })).map((hit) => hit.documentId)).toContain(orchard.id);

		const deleted = await first.request("DELETE", `/knowledge/sources/${sourceId}/documents/${lighthouse.id}`, { key: workspace.apiKey });
		expect(deleted.status).toBe(200);
		expect((await search(second, workspace.apiKey, sourceId, { query: "lighthouse keeper journal" })).map((hit) => hit.documentId)).not.toContain(lighthouse.id);

		// And the other way round: deleted through the second, gone from the first's next search.
		expect((await search(first, workspace.apiKey, sourceId, { query: "quinces medlars orchard" })).map((hit) => hit.documentId)).toContain(orchard.id);
		expect((await second.request("DELETE", `/knowledge/sources/${sourceId}/documents/${orchard.id}`, { key: workspace.apiKey })).status).toBe(200);
		expect((await search(first, workspace.apiKey, sourceId, { query: "quinces medlars orchard" })).map((hit) => hit.documentId)).not.toContain(orchard.id);

		// The second loaded the source once (lexicon and vectors); everything after was incremental.
		expect(fullLoads(second)).toBe(loadsAfterFirstSearch);
		expect(second.services.search.lexical.statistics.documentsLoaded).toBeGreaterThanOrEqual(1);
	});
});

describe("the search memory budget", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		// Smaller than any one source's structures: only the source searched last stays in memory.
		platform = await startTestPlatform({ knowledge: { searchMemoryBytes: 1 } });
		workspace = await platform.createWorkspace();
	}, 60_000);

	afterAll(async () => {
		await platform?.stop();
	});

	it("keeps the most recently searched source; one searched again after leaving memory loads again and answers the same", async () => {
		const sources: { id: string; query: string; documentId: string }[] = [];
		for (const [name, text, query] of [
			["Harbour", "Tugboats guide the container ships past the breakwater at dawn.", "tugboats breakwater"],
			["Bakery", "The sourdough rises overnight in wicker baskets before baking.", "sourdough wicker baskets"],
		]) {
			const id = await createSource(platform, workspace.apiKey, name);
			const document = await uploadDocument(platform, workspace.apiKey, id, `${name.toLowerCase()}.txt`, text);
			await waitForDocument(platform, workspace.apiKey, id, document.id, ["READY"]);
			sources.push({ id, query, documentId: document.id });
		}
		const { budget } = platform.services.search;
		const [harbour, bakery] = sources;
		const firstAnswer = await search(platform, workspace.apiKey, harbour.id, { query: harbour.query });
		expect(firstAnswer[0].documentId).toBe(harbour.documentId);
		const loads = fullLoads(platform);
		expect((await search(platform, workspace.apiKey, bakery.id, { query: bakery.query }))[0].documentId).toBe(bakery.documentId);
		// The harbour's lexicon and vectors left memory for the bakery's.
		expect(budget.statistics.evictions).toBe(2);
		expect(fullLoads(platform)).toBe(loads + 2);
		expect(await search(platform, workspace.apiKey, harbour.id, { query: harbour.query })).toEqual(firstAnswer);
		expect(fullLoads(platform)).toBe(loads + 4);
		expect(budget.statistics.evictions).toBe(4);
	});
});
