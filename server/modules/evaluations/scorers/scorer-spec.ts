import { z } from "zod";
import { type ScorerSpec, ZScorerSpecShape } from "../../../../contract/inputs/evaluations";
import type { FieldIssue } from "../../../shared/app-error";
import { checkJsonSchemaSubset } from "./json-schema-subset";
import { unsupportedConstruct } from "./tenant-pattern";

// The scorers' structure lives with the inputs that carry them (contract/inputs/evaluations.ts).
export {
	SCORER_TYPES,
	type ScorerSpec,
	ZContainsScorer,
	ZExactMatchScorer,
	ZJsonScorer,
	ZNumericScorer,
	ZRegexScorer,
	ZRubricScorer,
	ZToolCalledScorer,
} from "../../../../contract/inputs/evaluations";

/** What RE2 cannot run (backreferences, lookaround) and JSON Schema outside the supported subset, by field. */
function constructProblems(spec: ScorerSpec): { path: string; problem: string }[] {
	const problems: { path: string; problem: string }[] = [];
	if (spec.type === "regex") {
		const problem = unsupportedConstruct(spec.pattern);
		if (problem) problems.push({ path: "pattern", problem });
	}
	if (spec.type === "json" && spec.schema !== undefined) {
		const problem = checkJsonSchemaSubset(spec.schema);
		if (problem) problems.push({ path: "schema", problem });
	}
	return problems;
}

/** A scorer as the scoring reads it back: its structure and what the pattern engine can run. */
export const ZScorerSpec = ZScorerSpecShape.superRefine((spec, issues) => {
	for (const { path, problem } of constructProblems(spec)) issues.addIssue({ code: z.ZodIssueCode.custom, path: [path], message: problem });
});

/** A case's scorers checked past their structure, as `scorers.N.field` issues. */
export function checkScorerConstructs(scorers: ScorerSpec[]): FieldIssue[] {
	return scorers.flatMap((spec, index) => constructProblems(spec).map(({ path, problem }) => ({ field: `scorers.${index}.${path}`, issue: problem })));
}

/** How aggregates and comparisons name a scorer. */
export function scorerName(spec: { name?: string; type: string }): string {
	return spec.name ?? spec.type;
}
