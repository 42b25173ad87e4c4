import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, eventually, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/knowledge/${name}`, import.meta.url));

/** One distinctive sentence per supported type; each must come back from search. */
const DOCUMENTS: { filename: string; content: string | Buffer; query: string; expect: string }[] = [
	{ filename: "lighthouse.pdf", content: fixture("lighthouse.pdf"), query: "quartz lighthouse blinks seventeen times", expect: "quartz lighthouse" },
	{ filename: "orchards.docx", content: fixture("orchards.docx"), query: "marmalade turbines floating orchards", expect: "Marmalade turbines" },
	{ filename: "notes.txt", content: "Intro line.\n\nObsidian tortoises migrate across the Zelkova plateau every leap year.\n", query: "obsidian tortoises Zelkova plateau", expect: "Obsidian tortoises" },
	{ filename: "guide.md", content: "# Archive\n\n## Weather\n\nThe cobalt archivist catalogues thunderstorms in glass jars.\n", query: "cobalt archivist thunderstorms", expect: "cobalt archivist" },
	{ filename: "letters.markdown", content: "# Post\n\nVelvet submarines deliver midnight letters to Lake Orrin.\n", query: "velvet submarines Lake Orrin", expect: "Velvet submarines" },
	{
		filename: "birds.html",
		content: "<html><head><style>.x{color:red}</style><script>var decoy = 'zanzibarquokka';</script></head><body><h1>Birds</h1><p>Copper hummingbirds repair the clocktower of Emberfall.</p></body></html>",
		query: "copper hummingbirds clocktower Emberfall",
		expect: "Copper hummingbirds",
	},
	{ filename: "glaciers.htm", content: "<p>Saffron glaciers hum lullabies beneath Mount Tessaly.</p>", query: "saffron glaciers Mount Tessaly", expect: "Saffron glaciers" },
	{ filename: "services.csv", content: "vendor,service,price\nAcme,plumbing,10\nBrindlewick,harpsichord tuning for sleepy walruses,42\n", query: "harpsichord tuning walruses", expect: "Brindlewick" },
	{ filename: "expedition.json", content: JSON.stringify({ expedition: { leader: "Ysolde Farrowmere", cargo: ["luminous pumpkin seeds"] } }), query: "Ysolde Farrowmere", expect: "expedition.leader: Ysolde Farrowmere" },
];

describe("ingestion and search", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;
	const ids = new Map<string, string>();

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		sourceId = await createSource(platform, workspace.apiKey);
		for (const document of DOCUMENTS) {
			const created = await uploadDocument(platform, workspace.apiKey, sourceId, document.filename, document.content);
			expect(created.status).toBe("PENDING");
			ids.set(document.filename, created.id);
		}
		for (const document of DOCUMENTS) {
			const done = await waitForDocument(platform, workspace.apiKey, sourceId, ids.get(document.filename) as string);
			expect(done, document.filename).toMatchObject({ status: "READY", failureReason: null });
			expect(done.chunkCount).toBeGreaterThan(0);
		}
	}, 90_000);

	afterAll(async () => {
		await platform?.stop();
	});

	it.each(DOCUMENTS.map((document) => [document.filename, document] as const))("finds the distinctive sentence of %s", async (_name, document) => {
		const results = await search(platform, workspace.apiKey, sourceId, { query: document.query, topK: 3 });
		expect(results.length).toBeGreaterThan(0);
		expect(results[0].documentId).toBe(ids.get(document.filename));
		expect(results[0].filename).toBe(document.filename);
		expect(results[0].text).toContain(document.expect);
		expect(results[0].score).toBeGreaterThan(0);
		expect(results[0].score).toBeLessThanOrEqual(1);
	});

	it("records where each chunk stands: page, heading path, row range", async () => {
		const [pdf] = await search(platform, workspace.apiKey, sourceId, { query: "quartz lighthouse seventeen", topK: 1 });
		expect(pdf.location).toEqual({ page: 2 });
		const [docx] = await search(platform, workspace.apiKey, sourceId, { query: "marmalade turbines", topK: 1 });
		expect(docx.location).toEqual({ headingPath: ["Quillon Bay Handbook", "Orchards"] });
		const [markdown] = await search(platform, workspace.apiKey, sourceId, { query: "cobalt archivist", topK: 1 });
		expect(markdown.location).toEqual({ headingPath: ["Archive", "Weather"] });
		const [csv] = await search(platform, workspace.apiKey, sourceId, { query: "harpsichord walruses", topK: 1 });
		expect(csv.location).toEqual({ rowRange: { from: 1, to: 2 } });
		expect(csv.text.startsWith("vendor, service, price\n")).toBe(true);
	});

	it("drops script and style contents from HTML", async () => {
		const results = await search(platform, workspace.apiKey, sourceId, { query: "zanzibarquokka", topK: 5 });
		expect(results.filter((result) => result.text.includes("zanzibarquokka"))).toEqual([]);
	});

	it("honours topK and minScore", async () => {
		const many = await search(platform, workspace.apiKey, sourceId, { query: "the lighthouse harbour orchards glaciers", topK: 2 });
		expect(many).toHaveLength(2);
		const all = await search(platform, workspace.apiKey, sourceId, { query: "quartz lighthouse", topK: 10 });
		expect(all.length).toBeGreaterThan(1);
		// A threshold between the best and the worst score: some results pass, some do not.
		const threshold = (all[0].score + all[all.length - 1].score) / 2;
		expect(all[0].score).toBeGreaterThan(all[all.length - 1].score);
		const strict = await search(platform, workspace.apiKey, sourceId, { query: "quartz lighthouse", topK: 10, minScore: threshold });
		expect(strict.length).toBeGreaterThan(0);
		expect(strict.length).toBeLessThan(all.length);
		for (const result of strict) expect(result.score).toBeGreaterThanOrEqual(threshold);
		expect(strict).toEqual(all.filter((result) => result.score >= threshold));
	});

	it("finds a document ingested after the source's search indexes were built", async () => {
		// The in-memory BM25 index and vector matrix are built by the searches above; the READY
		// transaction's NOTIFY must drop them so the next search sees the new chunks.
		const late = await uploadDocument(platform, workspace.apiKey, sourceId, "late.txt", "Tangerine zeppelins moor above Quillon harbour at dusk.\n");
		await waitForDocument(platform, workspace.apiKey, sourceId, late.id);
		const [first] = await eventually(async () => {
			const results = await search(platform, workspace.apiKey, sourceId, { query: "tangerine zeppelins", topK: 1 });
			return results[0]?.documentId === late.id && results;
		}, 10_000, "the late document in search results");
		expect(first.text).toContain("Tangerine zeppelins");
	});

	it("searches READY documents only", async () => {
		const failed = await uploadDocument(platform, workspace.apiKey, sourceId, "broken.json", "{ not json: pelicanwhistle");
		await waitForDocument(platform, workspace.apiKey, sourceId, failed.id);
		expect((await search(platform, workspace.apiKey, sourceId, { query: "pelicanwhistle", topK: 5 })).map((result) => result.documentId)).not.toContain(failed.id);
		// A document whose chunks exist but which is not READY (as while a re-ingestion runs) is not searched either.
		const indexed = await uploadDocument(platform, workspace.apiKey, sourceId, "heron.txt", "The heronmarsh ferry crosses at noon.\n");
		await waitForDocument(platform, workspace.apiKey, sourceId, indexed.id);
		expect((await search(platform, workspace.apiKey, sourceId, { query: "heronmarsh ferry", topK: 5 }))[0]?.documentId).toBe(indexed.id);
		await platform.orm.em.fork().getConnection().execute("update knowledge_documents set status = 'PROCESSING' where id = ?", [indexed.id]);
		expect((await search(platform, workspace.apiKey, sourceId, { query: "heronmarsh ferry", topK: 5 })).map((result) => result.documentId)).not.toContain(indexed.id);
	});
});
