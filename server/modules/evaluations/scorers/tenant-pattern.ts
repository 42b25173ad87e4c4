import { RE2JS } from "re2js";
import { SCORER_PATTERN_LENGTH } from "../../../../contract/inputs/evaluations";

/**
 * What one tenant-supplied regular expression may cost. Patterns run on RE2 (re2js), whose
 * matching time is linear in the text: at most about `programSize` steps per character, so one
 * match is bounded by programSize × textLength whatever the pattern, with no backtracking to blow
 * up. The bounds keep that product (and the compile) small, and the matching runs off the event
 * loop (PatternEngine). At the work bound a match takes about half a second here (2 cores, idle);
 * typical patterns compile to under 100 instructions and reach the text bound first.
 */
export const PATTERN_LIMITS = {
	/** Characters of a pattern. */
	patternLength: SCORER_PATTERN_LENGTH,
	/** Instructions of the compiled program; a counted repetition `x{n}` holds n copies of x. */
	programSize: 1_000,
	/** Characters of the text one match reads. */
	textLength: 100_000,
	/** programSize × text length of one match: a 1,000-instruction program reads at most 20,000 characters. */
	work: 20_000_000,
} as const;

export type PatternLimits = { readonly [K in keyof typeof PATTERN_LIMITS]: number };

/**
 * JavaScript's flags as RE2's: `i`, `m` and `s` mean the same; `u` changes nothing, since RE2
 * always matches by code point (a JavaScript pattern without `u` matches UTF-16 units, which
 * differs only for characters outside the Basic Multilingual Plane).
 */
export function re2Flags(flags: string): number {
	let bits = 0;
	if (flags.includes("i")) bits |= RE2JS.CASE_INSENSITIVE;
	if (flags.includes("m")) bits |= RE2JS.MULTILINE;
	if (flags.includes("s")) bits |= RE2JS.DOTALL;
	return bits;
}

/**
 * The constructs RE2 cannot run in linear time, named so the author knows what to change:
 * backreferences and lookaround. One pass over the pattern; character classes are skipped (a `(`
 * or `\1` inside one is a literal or an octal escape, not a group). Null when none is present;
 * other syntax problems are reported by the compiler (PatternEngine.check).
 */
export function unsupportedConstruct(pattern: string): string | null {
	for (let index = 0; index < pattern.length; index++) {
		const char = pattern[index];
		if (char === "\\") {
			const next = pattern[index + 1] ?? "";
			if (/[1-9]/.test(next) || (next === "k" && pattern[index + 2] === "<")) {
				return "Backreferences (\\1, \\k<name>) are not supported: patterns run on RE2, a linear-time engine; match the repeated text explicitly instead";
			}
			index += 1;
			continue;
		}
		if (char === "[") {
			for (index += 1; index < pattern.length && pattern[index] !== "]"; index++) if (pattern[index] === "\\") index += 1;
			continue;
		}
		if (char === "(" && pattern[index + 1] === "?") {
			const opener = pattern.slice(index, index + 4);
			if (opener.startsWith("(?=") || opener.startsWith("(?!")) {
				return "Lookahead ((?=…), (?!…)) is not supported: patterns run on RE2, a linear-time engine; match the text itself instead";
			}
			if (opener === "(?<=" || opener === "(?<!") {
				return "Lookbehind ((?<=…), (?<!…)) is not supported: patterns run on RE2, a linear-time engine; match the text itself instead";
			}
		}
	}
	return null;
}
