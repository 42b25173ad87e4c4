import { createContext, runInContext } from "node:vm";
import type { ScorerOutcome } from "./scorer-outcome";

/** A match may take at most this long; the pattern and the output are both untrusted. */
export const REGEX_TIME_BUDGET_MS = 100;

/**
 * Refuses what makes backtracking blow up or cannot be bounded: a quantified group that itself
 * contains a quantifier (`(a+)+`, `(\w*)*`) and backreferences. The time budget at match time
 * catches what slips through (overlapping alternatives such as `(a|a)*`). Returns the problem, or
 * null when the pattern is acceptable.
 */
export function checkRegexPattern(pattern: string, flags: string): string | null {
	try {
		new RegExp(pattern, flags);
	} catch (error) {
		return `Not a valid regular expression: ${(error as Error).message}`;
	}
	// One frame per open group: whether a quantifier appears inside it.
	const groups: boolean[] = [];
	let lastClosedGroupHadQuantifier = false;
	let previousWasGroupClose = false;
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index];
		if (char === "\\") {
			const next = pattern[index + 1] ?? "";
			if (/[1-9]/.test(next) || next === "k") return "Backreferences are not allowed";
			index += 1;
			previousWasGroupClose = false;
			continue;
		}
		if (char === "[") {
			// Skip the character class: quantifier characters inside it are literals.
			for (index += 1; index < pattern.length && pattern[index] !== "]"; index++) if (pattern[index] === "\\") index += 1;
			previousWasGroupClose = false;
			continue;
		}
		if (char === "(") {
			groups.push(false);
			previousWasGroupClose = false;
			continue;
		}
		if (char === ")") {
			lastClosedGroupHadQuantifier = groups.pop() ?? false;
			if (lastClosedGroupHadQuantifier && groups.length > 0) groups[groups.length - 1] = true;
			previousWasGroupClose = true;
			continue;
		}
		const isQuantifier = char === "*" || char === "+" || char === "?" || (char === "{" && /^\{\d+(,\d*)?\}/.test(pattern.slice(index, index + 24)));
		if (isQuantifier) {
			// `?` right after `(` starts a group modifier, after another quantifier makes it lazy.
			if (char === "?" && (pattern[index - 1] === "(" || /[*+?}]/.test(pattern[index - 1] ?? ""))) continue;
			if (previousWasGroupClose && lastClosedGroupHadQuantifier && char !== "?") return "Nested quantifiers (a quantified group containing a quantifier) are not allowed: they can take exponential time";
			if (groups.length > 0) groups[groups.length - 1] = true;
			if (char === "{") index = pattern.indexOf("}", index);
			previousWasGroupClose = false;
			continue;
		}
		previousWasGroupClose = false;
	}
	return null;
}

/** Runs the match in a throwaway V8 context with a time budget, so a pathological one is cut off. */
export function scoreRegex(spec: { pattern: string; flags: string }, output: string): ScorerOutcome {
	const problem = checkRegexPattern(spec.pattern, spec.flags);
	if (problem) return { kind: "error", reason: problem };
	const sandbox = createContext({ pattern: spec.pattern, flags: spec.flags, text: output });
	let matched: boolean;
	try {
		matched = runInContext("new RegExp(pattern, flags).test(text)", sandbox, { timeout: REGEX_TIME_BUDGET_MS }) === true;
	} catch (error) {
		if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { kind: "error", reason: `The regular expression took longer than ${REGEX_TIME_BUDGET_MS} ms on this output and was stopped` };
		return { kind: "error", reason: `The regular expression failed: ${(error as Error).message}` };
	}
	return { kind: "scored", score: matched ? 1 : 0, passed: matched, reasoning: matched ? `Matches /${spec.pattern}/${spec.flags}` : `Does not match /${spec.pattern}/${spec.flags}` };
}
