import { describe, expect, it } from "vitest";
import { chunkDocument, estimateTokens } from "../../server/knowledge/chunk/chunk-document";
import { embedBuiltin } from "../../server/knowledge/embed/builtin-embedder";
import { decodeText } from "../../server/knowledge/parse/decode-text";
import { parseDocument } from "../../server/knowledge/parse/parse-document";
import { IngestionError } from "../../server/knowledge/parse/parsed-document";

const dot = (left: Float32Array, right: Float32Array) => left.reduce((sum, value, index) => sum + value * right[index], 0);

describe("text decoding", () => {
	const text = "Crème brûlée for Zoë";
	it.each([
		["UTF-8", Buffer.from(text, "utf8")],
		["UTF-8 with BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, "utf8")])],
		["UTF-16 LE with BOM", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])],
		["UTF-16 BE with BOM", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()])],
		["UTF-16 LE without BOM", Buffer.from(text, "utf16le")],
		["Latin-1", Buffer.from(text, "latin1")],
	])("decodes %s", (_name, bytes) => {
		expect(decodeText(bytes)).toBe(text);
	});
});

describe("parsers", () => {
	it("flattens JSON to path: value lines", async () => {
		const parsed = await parseDocument(Buffer.from(JSON.stringify({ a: { b: [1, { c: "x" }] }, d: null })), "json");
		expect(parsed.blocks.map((block) => block.text)).toEqual(["a.b[0]: 1\na.b[1].c: x", "d: null"]);
	});

	it("keeps the CSV header with every row group and handles quoted fields", async () => {
		const rows = Array.from({ length: 60 }, (_, index) => `${index},"item, ${index}","say ""hi"""`);
		const parsed = await parseDocument(Buffer.from(`id,name,quote\n${rows.join("\n")}\n`), "csv");
		expect(parsed.blocks.length).toBe(3);
		for (const block of parsed.blocks) expect(block.text.startsWith("id, name, quote\n")).toBe(true);
		expect(parsed.blocks.map((block) => block.rowRange)).toEqual([{ from: 1, to: 25 }, { from: 26, to: 50 }, { from: 51, to: 60 }]);
		expect(parsed.blocks[0].text).toContain('0, item, 0, say "hi"');
	});

	it("drops script, style and comments from HTML and decodes entities", async () => {
		const parsed = await parseDocument(Buffer.from("<style>p{}</style><h2>Fish &amp; chips</h2><script>alert(1)</script><!-- hidden --><p>Caf&eacute; &#x263A;</p>"), "html");
		const text = parsed.blocks.map((block) => block.text).join("\n");
		expect(text).toContain("Café ☺");
		expect(text).not.toMatch(/alert|hidden|p\{\}/);
		expect(parsed.blocks.at(-1)?.headingPath).toEqual(["Fish & chips"]);
	});

	it.each([
		["empty file", Buffer.alloc(0), "txt", /empty/],
		["invalid JSON", Buffer.from("{"), "json", /not valid JSON/],
		["corrupt PDF", Buffer.from("%PDF-1.4 nonsense"), "pdf", /PDF could not be read/],
		["corrupt DOCX", Buffer.from("not a zip"), "docx", /DOCX file could not be read/],
	] as const)("rejects an %s with a reason", async (_name, bytes, extension, reason) => {
		const error = await parseDocument(bytes, extension).catch((caught) => caught);
		expect(error).toBeInstanceOf(IngestionError);
		expect(error.message).toMatch(reason);
	});
});

describe("chunking", () => {
	it("packs sentences up to the target with overlap and never crosses a section", () => {
		const sentences = Array.from({ length: 200 }, (_, index) => `Sentence number ${index} talks about topic ${index % 7}.`);
		const chunks = chunkDocument(
			{ blocks: [{ text: sentences.join(" "), headingPath: ["A"] }, { text: "Short section.", headingPath: ["B"] }] },
			{ targetTokens: 100, overlapTokens: 20 },
		);
		const sectionA = chunks.filter((chunk) => chunk.location.headingPath?.[0] === "A");
		expect(sectionA.length).toBeGreaterThan(5);
		for (const chunk of sectionA) expect(chunk.tokenCount).toBeLessThanOrEqual(100);
		// Overlap: each chunk starts with the tail of the previous one.
		for (let index = 1; index < sectionA.length; index++) {
			const firstSentence = sectionA[index].text.split(/(?<=\.)\s/)[0];
			expect(sectionA[index - 1].text).toContain(firstSentence);
		}
		expect(chunks.at(-1)).toEqual({ text: "Short section.", tokenCount: estimateTokens("Short section."), location: { headingPath: ["B"] } });
	});

	it("splits a sentence longer than a chunk by words", () => {
		const chunks = chunkDocument({ blocks: [{ text: "word ".repeat(1000) }] }, { targetTokens: 100, overlapTokens: 0 });
		expect(chunks.length).toBeGreaterThanOrEqual(10);
		for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(100);
	});
});

describe("builtin embedder", () => {
	it("is deterministic, 512-dimensional and L2-normalised", () => {
		const vector = embedBuiltin("The quick brown fox");
		expect(vector.length).toBe(512);
		expect(dot(vector, vector)).toBeCloseTo(1, 5);
		expect(Array.from(embedBuiltin("The quick brown fox"))).toEqual(Array.from(vector));
	});

	it("scores shared words and spelling variants above unrelated text", () => {
		const query = embedBuiltin("resetting a forgotten password");
		const related = embedBuiltin("How to reset your password when you forgot it");
		const unrelated = embedBuiltin("Quarterly revenue grew in the northern region");
		expect(dot(query, related)).toBeGreaterThan(dot(query, unrelated) + 0.2);
	});
});
