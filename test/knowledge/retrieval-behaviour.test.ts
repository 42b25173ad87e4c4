import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, eventually, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

const RETURNS_TEXT = Array.from(
	{ length: 14 },
	(_, index) => `Customers may send items back within ${index + 20} days of delivery, in their original packaging, and receive their money on the card they paid with.`,
).join(" ");

const SHIPPING_TEXT = Array.from(
	{ length: 13 },
	(_, index) => `Orders placed before ${index + 1} o'clock leave the Leeds warehouse the same day and travel by tracked courier to the address given.`,
).join(" ");

/** What a user notices of the ranking, through the API: headings count, expansion, fresh documents. */
describe("retrieval behaviour", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	const ingest = async (sourceId: string, documents: [string, string][]) => {
		const ids = new Map<string, string>();
		for (const [filename, content] of documents) ids.set(filename, (await uploadDocument(platform, workspace.apiKey, sourceId, filename, content)).id);
		for (const id of ids.values()) expect(await waitForDocument(platform, workspace.apiKey, sourceId, id)).toMatchObject({ status: "READY" });
		return ids;
	};

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
	}, 60_000);

	afterAll(async () => {
		await platform?.stop();
	});

	it("ranks a section titled with the query's words above a passing mention in another document", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "handbook");
		const ids = await ingest(sourceId, [
			// A long section: its heading is said once in its first chunk's text, among ~300 other words.
			["policies.md", `# Store handbook\n\n## Refund policy\n\n${RETURNS_TEXT}\n`],
			// As long, naming both words once in passing.
			["shipping.txt", `${SHIPPING_TEXT} A refund of the shipping cost is possible when a parcel arrives damaged; the carrier's policy applies.\n`],
			["opening.txt", "The shop opens at nine and closes at six on weekdays.\n"],
		]);
		const results = await search(platform, workspace.apiKey, sourceId, { query: "refund policy", topK: 5 });
		expect(results[0].documentId).toBe(ids.get("policies.md"));
		expect(results[0].location).toEqual({ headingPath: ["Store handbook", "Refund policy"] });
		const mention = results.find((result) => result.documentId === ids.get("shipping.txt"));
		expect(mention && results[0].score).toBeGreaterThan(mention?.score ?? 1);
	});

	it("finds a document that shares no word with the question through the vocabulary of the best matches", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "aeronautics");
		const ids = await ingest(sourceId, [
			["slipstream-1.txt", "Propeller slipstream over the wing: the destalling effect raises the lift increment of the wing at high incidence."],
			["slipstream-2.txt", "Tests of a wing in a propeller slipstream show destalling and a larger lift increment near the stall."],
			["slipstream-3.txt", "The propeller slipstream delays wing stall; destalling accounts for most of the lift increment measured."],
			["destalling.txt", "Destalling of a wing section raises its lift increment and delays the stall at high incidence."],
			["cylinders.txt", "Buckling of thin cylindrical shells under axial compression and external pressure loads."],
			["heat.txt", "Heat transfer through the laminar boundary layer of a flat plate at hypersonic speeds."],
			["nozzles.txt", "Exhaust nozzles of jet engines: thrust losses from overexpansion and flow separation."],
		]);
		const results = await search(platform, workspace.apiKey, sourceId, { query: "propeller slipstream", topK: 5 });
		const order = results.map((result) => result.documentId);
		expect(new Set(order.slice(0, 3))).toEqual(new Set([ids.get("slipstream-1.txt"), ids.get("slipstream-2.txt"), ids.get("slipstream-3.txt")]));
		// Neither "propeller" nor "slipstream" is in it: only the expansion (destalling, lift, increment) finds it.
		expect(order[3]).toBe(ids.get("destalling.txt"));
		expect(results[3].score).toBeGreaterThan((results[4]?.score ?? 0) + 0.05);
	});

	it("serves a document ingested after the source was searched without rebuilding the source's indexes", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "growing");
		await ingest(sourceId, [
			["alpha.txt", "Wind tunnel corrections for solid blockage in closed test sections."],
			["beta.txt", "Transition of the boundary layer on swept wings at supersonic speed."],
		]);
		const before = await search(platform, workspace.apiKey, sourceId, { query: "glockenspiel wind tunnel", topK: 3 });
		expect(before.map((result) => result.filename)).not.toContain("gamma.txt");
		const { lexical: lexicalIndexCache, vectors: vectorCache } = platform.services.search;
		const fullLoads = { lexical: lexicalIndexCache.statistics.fullLoads, vectors: vectorCache.statistics.fullLoads };
		const documentsLoaded = lexicalIndexCache.statistics.documentsLoaded;

		const added = await ingest(sourceId, [["gamma.txt", "A glockenspiel played in the wind tunnel control room during gust tests."]]);
		// The READY commit's notification reaches this process's LISTEN connection asynchronously.
		const [hit] = await eventually(async () => {
			const results = await search(platform, workspace.apiKey, sourceId, { query: "glockenspiel", topK: 3, minScore: 0.5 });
			return results.length ? results : undefined;
		}, 10_000, "the new document in search results");
		expect(hit.documentId).toBe(added.get("gamma.txt"));
		expect(lexicalIndexCache.statistics.fullLoads).toBe(fullLoads.lexical);
		expect(vectorCache.statistics.fullLoads).toBe(fullLoads.vectors);
		expect(lexicalIndexCache.statistics.documentsLoaded).toBeGreaterThan(documentsLoaded);

		const deleted = await platform.request("DELETE", `/knowledge/sources/${sourceId}/documents/${added.get("gamma.txt")}`, { key: workspace.apiKey });
		expect(deleted.status).toBe(200);
		await eventually(
			async () => (await search(platform, workspace.apiKey, sourceId, { query: "glockenspiel", topK: 3 })).every((result) => result.filename !== "gamma.txt"),
			10_000,
			"the deleted document gone from results",
		);
		expect(lexicalIndexCache.statistics.fullLoads).toBe(fullLoads.lexical);
		expect(vectorCache.statistics.fullLoads).toBe(fullLoads.vectors);
	});
});
