import { describe, expect, it } from "vitest";
import type { DocumentExtension } from "../../contract/schemas/knowledge";
import { parseAndChunk } from "../../server/knowledge/parse/parse-and-chunk";
import { IngestionError, type ParseLimits } from "../../server/knowledge/parse/parsed-document";
import { docx, pdf, pdfText, wordParagraphs } from "./hostile-files";

/**
 * Each parser (and the chunker behind it) on inputs built to make it super-linear: the inputs
 * the hostile-input review found (repeated `<!--`, unclosed `<script` and `<a `, a line of `#`,
 * short words without punctuation, a one-line CSV) and their cousins. Time at size n and 16n, best
 * of three each, the two sizes taking turns so a busy machine slows both alike: linear work grows
 * about 16x, quadratic 256x. The bound (80x, the growth of n^1.6) catches quadratic behaviour with
 * room for what a loaded machine does to the larger input (garbage collection, caches: up to 50x was
 * seen for linear code under load), without being a benchmark. Inputs that make many small objects
 * (short CSV rows) start at 200 KB: at 50 KB the small run stayed in the young generation, and under
 * load 16 times the input took 118 times as long, a garbage-collection effect, not the parser's
 * (per byte, 50 KB to 1.6 MB cost the same within noise when measured cold).
 */
const LIMITS: ParseLimits = { maxExpandedBytes: 1024 ** 3, maxCharacters: 1e9, maxChunks: 1e9 };
const GROWTH = 16;
const ALLOWED_RATIO = 80;

const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));

const CASES: { name: string; extension: DocumentExtension; size: number; build: (size: number) => Buffer }[] = [
	{ name: "HTML: repeated <!--", extension: "html", size: 200_000, build: (size) => Buffer.from(`<p>x</p>${repeat("<!--", size)}`) },
	{ name: "HTML: unclosed <script", extension: "html", size: 200_000, build: (size) => Buffer.from(`<p>x</p>${repeat("<script", size)}`) },
	{ name: "HTML: unclosed <a ", extension: "html", size: 200_000, build: (size) => Buffer.from(`<p>x</p>${repeat("<a ", size)}`) },
	{ name: "HTML: unclosed <head> and <svg>", extension: "html", size: 200_000, build: (size) => Buffer.from(repeat("<head>x<svg>y", size)) },
	{ name: "HTML: whitespace runs around a newline", extension: "html", size: 100_000, build: (size) => Buffer.from(`<p>a${repeat("\u2003", size)}\n${repeat("\u2003", size)}b</p>`) },
	{ name: "HTML: entities without semicolons", extension: "html", size: 100_000, build: (size) => Buffer.from(`<p>${repeat("&#x1", size)}</p>`) },
	{ name: "Markdown: a line of #", extension: "md", size: 200_000, build: (size) => Buffer.from(`# ${repeat("#", size)} x`) },
	{ name: "Markdown: a line of '# '", extension: "md", size: 50_000, build: (size) => Buffer.from(`# ${repeat("# ", size)}x`) },
	{ name: "Markdown: runs of spaces", extension: "md", size: 100_000, build: (size) => Buffer.from(`a${repeat(" ", size)}b\n${repeat(" \t", size)}\nc`) },
	{ name: "text: short words without punctuation", extension: "txt", size: 100_000, build: (size) => Buffer.from(repeat("ab cd ", size)) },
	{ name: "text: one long word", extension: "txt", size: 200_000, build: (size) => Buffer.from(repeat("x", size)) },
	{ name: "text: blank lines of spaces", extension: "txt", size: 100_000, build: (size) => Buffer.from(repeat("a\n   \n", size)) },
	{ name: "CSV: one line", extension: "csv", size: 200_000, build: (size) => Buffer.from(repeat("abcdefghi,", size)) },
	{ name: "CSV: one quoted field of escaped quotes", extension: "csv", size: 200_000, build: (size) => Buffer.from(`h\n"${repeat('""', size)}"`) },
	{ name: "CSV: many short rows", extension: "csv", size: 200_000, build: (size) => Buffer.from(`a,b\n${repeat("1,2\n", size)}`) },
	{ name: "JSON: deep nesting", extension: "json", size: 2_000, build: (size) => Buffer.from(`${"[".repeat(size)}1${"]".repeat(size)}`) },
	{ name: "JSON: a wide array", extension: "json", size: 50_000, build: (size) => Buffer.from(JSON.stringify(Array.from({ length: size / 4 }, (_, index) => index % 100))) },
	{ name: "DOCX: many paragraphs", extension: "docx", size: 400, build: (size) => docx(wordParagraphs(Array.from({ length: size }, (_, index) => `Paragraph ${index} of short words`))) },
	{ name: "PDF: many text lines", extension: "pdf", size: 500, build: (size) => pdf(pdfText(Array.from({ length: size }, (_, index) => `Line ${index} of short words`))) },
];

async function timeOnce(bytes: Buffer, extension: DocumentExtension): Promise<number> {
	const started = performance.now();
	await parseAndChunk(bytes, extension, LIMITS).catch((error) => {
		// Some inputs hold no text at all; failing with a reason is as good an outcome.
		if (!(error instanceof IngestionError)) throw error;
	});
	return performance.now() - started;
}

/** Best of three for each input, measured in turns. */
async function bestTimes(small: Buffer, large: Buffer, extension: DocumentExtension): Promise<{ smallTime: number; largeTime: number }> {
	let smallTime = Infinity;
	let largeTime = Infinity;
	for (let run = 0; run < 3; run++) {
		smallTime = Math.min(smallTime, await timeOnce(small, extension));
		largeTime = Math.min(largeTime, await timeOnce(large, extension));
	}
	return { smallTime, largeTime };
}

describe("parsing and chunking take linear time on adversarial input", () => {
	it.each(CASES)("$name", async ({ extension, size, build }) => {
		const small = build(size);
		const large = build(size * GROWTH);
		// Warm-up: the first call compiles the code paths (and loads pdf.js) whatever the size.
		await timeOnce(small, extension);
		const { smallTime, largeTime } = await bestTimes(small, large, extension);
		// Below a few milliseconds, fixed costs, timer resolution and scheduling dominate (an input whose
		// text is all dropped parsed in 2.5 ms, 16 times more in 290 ms): compare against 5 ms at least.
		expect(largeTime, `${small.length} bytes: ${smallTime.toFixed(1)} ms; ${large.length} bytes: ${largeTime.toFixed(1)} ms`).toBeLessThan(
			ALLOWED_RATIO * Math.max(smallTime, 5),
		);
	}, 120_000);
});
