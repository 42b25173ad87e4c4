import type { z } from "zod";
import { PatternNotRun, type PatternMatcher, validateJsonSchemaSubset } from "./json-schema-subset";
import type { ScorerOutcome } from "./scorer-outcome";
import type { ZContainsScorer, ZExactMatchScorer, ZJsonScorer, ZNumericScorer } from "./scorer-spec";

const quote = (text: string, limit = 80) => JSON.stringify(text.length > limit ? `${text.slice(0, limit)}…` : text);

function needExpected(expected: string | null, type: string): ScorerOutcome | null {
	return expected === null ? { kind: "error", reason: `The ${type} scorer needs the case's expected output, and the case has none` } : null;
}

export function scoreExactMatch(spec: z.output<typeof ZExactMatchScorer>, output: string, expected: string | null): ScorerOutcome {
	const missing = needExpected(expected, "exact_match");
	if (missing || expected === null) return missing as ScorerOutcome;
	const normalise = (text: string) => {
		const trimmed = spec.trim ? text.trim() : text;
		return spec.caseSensitive ? trimmed : trimmed.toLowerCase();
	};
	const passed = normalise(output) === normalise(expected);
	return { kind: "scored", score: passed ? 1 : 0, passed, reasoning: passed ? "Output equals the expected output" : `Output differs from the expected ${quote(expected)}` };
}

export function scoreContains(spec: z.output<typeof ZContainsScorer>, output: string, expected: string | null): ScorerOutcome {
	const value = spec.value ?? expected;
	if (value === null || value === "") return { kind: "error", reason: "The contains scorer needs a value or the case's expected output" };
	const passed = spec.caseSensitive ? output.includes(value) : output.toLowerCase().includes(value.toLowerCase());
	return { kind: "scored", score: passed ? 1 : 0, passed, reasoning: passed ? `Output contains ${quote(value)}` : `Output does not contain ${quote(value)}` };
}

/** A number written in plain or scientific notation; linear to scan. */
const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/;

export function scoreNumeric(spec: z.output<typeof ZNumericScorer>, output: string, expected: string | null): ScorerOutcome {
	const target = spec.expected ?? (expected === null ? Number.NaN : Number(expected.trim()));
	if (!Number.isFinite(target)) return { kind: "error", reason: "The numeric scorer needs an expected number: give `expected`, or an expected output that is a number" };
	const found = NUMBER.exec(output.replace(/(?<=\d),(?=\d{3}\b)/g, ""));
	if (!found) return { kind: "scored", score: 0, passed: false, reasoning: "Output contains no number" };
	const actual = Number(found[0]);
	const difference = Math.abs(actual - target);
	const allowed = Math.max(spec.tolerance, (spec.relativeTolerance ?? 0) * Math.abs(target));
	const passed = difference <= allowed;
	return { kind: "scored", score: passed ? 1 : 0, passed, reasoning: `Output's number ${actual} is ${difference} from ${target} (allowed: ${allowed})` };
}

/** `matchPattern` runs the schema's `pattern`s (the workspace's lane of the pattern engine). */
export async function scoreJson(spec: z.output<typeof ZJsonScorer>, output: string, matchPattern: PatternMatcher): Promise<ScorerOutcome> {
	let value: unknown;
	try {
		value = JSON.parse(output);
	} catch (error) {
		return { kind: "scored", score: 0, passed: false, reasoning: `Output is not valid JSON: ${(error as Error).message}` };
	}
	if (spec.schema === undefined) return { kind: "scored", score: 1, passed: true, reasoning: "Output is valid JSON" };
	let problem: string | null;
	try {
		problem = await validateJsonSchemaSubset(spec.schema, value, matchPattern);
	} catch (error) {
		if (error instanceof PatternNotRun) return { kind: "error", reason: `A pattern of the schema could not be run: ${error.message}` };
		throw error;
	}
	return problem
		? { kind: "scored", score: 0, passed: false, reasoning: `Output is JSON but does not match the schema: ${problem}` }
		: { kind: "scored", score: 1, passed: true, reasoning: "Output is JSON matching the schema" };
}
