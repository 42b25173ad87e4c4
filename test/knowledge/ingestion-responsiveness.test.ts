import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, pollHealth, search, uploadDocument, waitForDocument } from "./knowledge-helpers";

/** About `bytes` of prose-like text from a vocabulary of a few thousand words, seeded. */
function generatedText(bytes: number, seed: number): string {
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2 ** 31;
		return state / 2 ** 31;
	};
	const word = () => {
		let text = "";
		for (let value = Math.floor(next() ** 3 * 5000) + 676; value > 0; value = Math.floor(value / 26)) text += "abcdefghijklmnopqrstuvwxyz"[value % 26];
		return text;
	};
	const parts: string[] = [];
	for (let length = 0; length < bytes; ) {
		const sentence = `${Array.from({ length: 8 + Math.floor(next() * 12) }, word).join(" ")}.${next() < 0.1 ? "\n\n" : " "}`;
		parts.push(sentence);
		length += sentence.length;
	}
	return parts.join("");
}

/**
 * Documents of several megabytes ingested with the builtin embedder: every other request of the
 * process (here /healthz, polled one request after another) keeps being answered while they are
 * parsed, embedded and written.
 */
describe("ingesting large documents", () => {
	let platform: TestPlatform;
	let owner: TestWorkspace;

	beforeAll(async () => {
		platform = await startTestPlatform();
		owner = await platform.createWorkspace();
	}, 60_000);

	afterAll(async () => {
		await platform?.stop();
	});

	it("leaves /healthz answering while three 2 MB documents are ingested, and their chunks are searchable", async () => {
		const sourceId = await createSource(platform, owner.apiKey, "Reports");
		const texts = [1, 2, 3].map((seed) => generatedText(2 * 1024 * 1024, seed));
		const health = pollHealth(platform);
		const documents = await Promise.all(texts.map((text, index) => uploadDocument(platform, owner.apiKey, sourceId, `report-${index}.txt`, text)));
		const finished = await Promise.all(documents.map((document) => waitForDocument(platform, owner.apiKey, sourceId, document.id, ["READY", "FAILED"], 150_000)));
		const { slowestMs, answers, failures } = await health.stop();

		expect(finished.map((document) => document.status)).toEqual(["READY", "READY", "READY"]);
		expect(failures).toBe(0);
		expect(answers).toBeGreaterThan(20);
		// A coarse bound that catches the loop held for the length of a document's embedding (seconds).
		expect(slowestMs).toBeLessThan(1000);
		// The vectors computed off the loop are the ones search ranks with: a sentence of the second document finds it.
		const sentence = texts[1].split(". ")[40];
		const results = await search(platform, owner.apiKey, sourceId, { query: sentence, topK: 3 });
		expect(results[0]?.documentId).toBe(documents[1].id);
	}, 200_000);
});
