import type { z } from "zod";
import type { ScorerOutcome } from "./scorer-outcome";
import type { ZToolCalledScorer } from "./scorer-spec";

/** Whether `actual` has every field of `expected` with an equal value (objects compared as subsets, arrays and scalars exactly). */
function containsSubset(actual: unknown, expected: unknown): boolean {
	if (typeof expected !== "object" || expected === null || Array.isArray(expected)) return JSON.stringify(actual) === JSON.stringify(expected);
	if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
	return Object.entries(expected).every(([key, value]) => containsSubset((actual as Record<string, unknown>)[key], value));
}

/**
 * Passes when the assistant called `tool` (with `arguments` as a subset of the call's, when
 * given): a version that stopped calling the right tool, or calls it wrongly, shows as a regression.
 */
export function scoreToolCalled(spec: z.infer<typeof ZToolCalledScorer>, toolCalls: { name: string; arguments: unknown }[]): ScorerOutcome {
	const named = toolCalls.filter((call) => call.name === spec.tool);
	if (named.length === 0) {
		const made = toolCalls.length === 0 ? "no tool calls" : `calls to ${[...new Set(toolCalls.map((call) => call.name))].join(", ")}`;
		return { kind: "scored", score: 0, passed: false, reasoning: `${spec.tool} was not called (${made})` };
	}
	if (spec.arguments && !named.some((call) => containsSubset(call.arguments, spec.arguments))) {
		return { kind: "scored", score: 0, passed: false, reasoning: `${spec.tool} was called, but never with ${JSON.stringify(spec.arguments)}` };
	}
	return { kind: "scored", score: 1, passed: true, reasoning: `${spec.tool} was called${spec.arguments ? ` with ${JSON.stringify(spec.arguments)}` : ""}` };
}
