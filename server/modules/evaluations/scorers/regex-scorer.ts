import type { z } from "zod";
import type { PatternEngine } from "./pattern-engine";
import type { ScorerOutcome } from "./scorer-outcome";
import type { ZRegexScorer } from "./scorer-spec";

/**
 * Whether the output matches the pattern, found anywhere in it as JavaScript's RegExp.test finds
 * it. The match runs on RE2 in the pattern thread (linear time, bounded sizes), queued with the
 * workspace's other matches.
 */
export async function scoreRegex(patterns: PatternEngine, workspaceId: string, spec: z.output<typeof ZRegexScorer>, output: string): Promise<ScorerOutcome> {
	const outcome = await patterns.test(workspaceId, spec.pattern, spec.flags, output);
	if ("problem" in outcome) return { kind: "error", reason: outcome.problem };
	const matched = outcome.matched;
	return { kind: "scored", score: matched ? 1 : 0, passed: matched, reasoning: matched ? `Matches /${spec.pattern}/${spec.flags}` : `Does not match /${spec.pattern}/${spec.flags}` };
}
