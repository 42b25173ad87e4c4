import { describe, expect, it } from "vitest";
import { pollingDelay } from "../../web/src/features/evaluations/evaluation-queries";
import { parseCasesFile, parseCsvRecords } from "../../web/src/features/evaluations/import-cases";
import { newScorerDraft, scorerDraftFrom, scorerSpecFrom } from "../../web/src/features/evaluations/scorer-drafts";

/** What the evaluation pages work out in the browser before anything is sent. */
describe("evaluation cases read from files and forms", () => {
	it("reads CSV as RFC 4180 says: quoted commas, doubled quotes and line breaks, each record named by the line it starts on", () => {
		expect(parseCsvRecords('input,expectedOutput\r\n"Hello, world","He said ""hi""\nthen left"\nplain,4\n')).toEqual([
			{ line: 1, fields: ["input", "expectedOutput"] },
			{ line: 2, fields: ["Hello, world", 'He said "hi"\nthen left'] },
			{ line: 4, fields: ["plain", "4"] },
		]);
		expect(parseCsvRecords('input\n"never closed')).toEqual({ line: 2, message: "A quoted field is never closed" });
	});

	it("turns CSV rows into cases and names every row that cannot be one", () => {
		const csv = [
			"input,expectedOutput,scorer,scorers",
			"What is 2+2?,4,,",
			"Capital of France?,Paris,contains,",
			"Greet me,,,\"[{\"\"type\"\":\"\"regex\"\",\"\"pattern\"\":\"\"^hello\"\"}]\"",
			"No scorer at all,,,",
			"Needs settings,,rubric,",
			"Broken,,,[{",
			"Too,many,fields,here,!",
		].join("\n");
		const parsed = parseCasesFile("cases.csv", csv);
		expect(parsed.cases).toEqual([
			{ line: 2, body: { input: "What is 2+2?", expectedOutput: "4", scorers: [{ type: "exact_match" }] } },
			{ line: 3, body: { input: "Capital of France?", expectedOutput: "Paris", scorers: [{ type: "contains" }] } },
			{ line: 4, body: { input: "Greet me", scorers: [{ type: "regex", pattern: "^hello" }] } },
		]);
		expect(parsed.issues.map((issue) => issue.line)).toEqual([5, 6, 7, 8]);
		expect(parsed.issues[1].message).toMatch(/^The scorer 'rubric' needs settings/);
		expect(parsed.issues[3].message).toBe("5 fields where the header has 4");
		expect(parseCasesFile("cases.csv", "question,answer\nx,y").issues).toEqual([{ line: 1, message: "The header row has no 'input' column" }]);
	});

	it("reads JSON Lines, skipping blank lines and naming lines that are not case objects", () => {
		const parsed = parseCasesFile("cases.jsonl", ['{"input":"a","scorers":[{"type":"exact_match"}]}', "", "[1,2]", '{"input":"b"}', "{oops"].join("\n"));
		expect(parsed.cases).toEqual([{ line: 1, body: { input: "a", scorers: [{ type: "exact_match" }] } }]);
		expect(parsed.issues.map((issue) => [issue.line, issue.message.split(":")[0]])).toEqual([
			[3, "Not an object"],
			[4, "No scorers"],
			[5, "Not JSON"],
		]);
		const tooMany = Array.from({ length: 1_001 }, (_, index) => JSON.stringify({ input: `q${index}`, scorers: [{ type: "contains" }] })).join("\n");
		expect(parseCasesFile("many.jsonl", tooMany)).toMatchObject({ cases: [], issues: [{ message: "The file holds 1001 cases; a dataset holds at most 1000" }] });
	});

	it("builds each scorer from its own form and back, leaving out what was left empty", () => {
		expect(scorerSpecFrom({ ...newScorerDraft("numeric"), tolerance: "0.5", expected: "" }, 0)).toEqual({ type: "numeric", tolerance: 0.5 });
		expect(scorerSpecFrom({ ...newScorerDraft("json"), schema: '{"type":"object"}' }, 0)).toEqual({ type: "json", schema: { type: "object" } });
		expect(() => scorerSpecFrom({ ...newScorerDraft("json"), schema: "{type" }, 2)).toThrow(/^The schema is not JSON/);
		const rubric = { type: "rubric", name: "tone", criteria: "Polite", provider: "mistral", model: "m", passThreshold: 0.7 };
		expect(scorerSpecFrom(scorerDraftFrom(rubric), 0)).toEqual(rubric);
		expect(scorerSpecFrom(newScorerDraft("contains"), 0)).toEqual({ type: "contains", caseSensitive: false });
	});

	it("polls while a run is in flight, less often each time up to 5 s, and not at all once it is over", () => {
		expect([1, 2, 3, 4, 5, 10].map((updates) => pollingDelay(true, updates))).toEqual([1_000, 1_500, 2_250, 3_375, 5_000, 5_000]);
		expect(pollingDelay(false, 3)).toBe(false);
	});
});
