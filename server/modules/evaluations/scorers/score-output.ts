import type { EvaluationScore } from "../../../db/entities";
import type { UseCaseContext } from "../../platform-services";
import type { GenerationOrigin } from "../../runtime/run-generation";
import { scoreRegex } from "./regex-scorer";
import { scoreRubric } from "./rubric-scorer";
import type { ScorerOutcome } from "./scorer-outcome";
import { scorerName, type ScorerSpec, ZScorerSpec } from "./scorer-spec";
import { scoreContains, scoreExactMatch, scoreJson, scoreNumeric } from "./text-scorers";
import { scoreToolCalled } from "./tool-called-scorer";

export interface CaseText {
	/** The case's input as the grader reads it (the input, or the conversation). */
	input: string;
	expected: string | null;
	output: string;
	/** The tool calls the assistant made on the server, in order. */
	toolCalls: { name: string; arguments: unknown }[];
}

async function runScorer(context: UseCaseContext, spec: ScorerSpec, origin: GenerationOrigin, text: CaseText): Promise<ScorerOutcome> {
	switch (spec.type) {
		case "exact_match":
			return scoreExactMatch(spec, text.output, text.expected);
		case "contains":
			return scoreContains(spec, text.output, text.expected);
		case "regex":
			return scoreRegex(context.services.patterns, origin.workspaceId, spec, text.output);
		case "json":
			return scoreJson(spec, text.output, (pattern, value) => context.services.patterns.test(origin.workspaceId, pattern, "", value));
		case "numeric":
			return scoreNumeric(spec, text.output, text.expected);
		case "rubric":
			return scoreRubric(context, spec, origin, text);
		case "tool_called":
			return scoreToolCalled(spec, text.toolCalls);
	}
}

/**
 * Every scorer of a case on one output, in order. A scorer that cannot score (a bad pattern, a
 * grader that is unreachable or answers out of form, a stored spec that no longer parses) yields
 * an errored score with the reason; the others still score.
 */
export async function scoreOutput(
	context: UseCaseContext,
	specs: unknown[],
	origin: GenerationOrigin,
	text: CaseText,
): Promise<{ scores: EvaluationScore[]; costMicroUsd: number }> {
	const scores: EvaluationScore[] = [];
	let costMicroUsd = 0;
	for (const raw of specs) {
		const parsed = ZScorerSpec.safeParse(raw);
		const label = { scorer: scorerName(raw as { name?: string; type: string }), type: String((raw as { type?: unknown }).type) };
		if (!parsed.success) {
			scores.push({ ...label, score: null, passed: null, reasoning: "", error: `Scorer is not valid: ${parsed.error.issues.map((issue) => issue.message).join("; ")}` });
			continue;
		}
		let outcome: ScorerOutcome;
		try {
			outcome = await runScorer(context, parsed.data, origin, text);
		} catch (error) {
			outcome = { kind: "error", reason: `Scorer failed: ${(error as Error).message}` };
		}
		costMicroUsd += outcome.costMicroUsd ?? 0;
		scores.push(
			outcome.kind === "scored"
				? { ...label, score: outcome.score, passed: outcome.passed, reasoning: outcome.reasoning, error: null }
				: { ...label, score: null, passed: null, reasoning: "", error: outcome.reason },
		);
	}
	return { scores, costMicroUsd };
}
