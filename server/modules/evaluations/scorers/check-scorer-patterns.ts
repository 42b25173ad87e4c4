import type { FieldIssue } from "../../../shared/app-error";
import { jsonSchemaPatterns } from "./json-schema-subset";
import type { PatternEngine } from "./pattern-engine";
import type { ScorerSpec } from "./scorer-spec";

/**
 * Compiles every regular expression of the scorers (regex patterns, JSON Schema `pattern`s) on the
 * pattern engine, as the scorer will run them: what RE2 refuses (syntax, a program past the size
 * limit) is a VALIDATION_ERROR when the case is written, naming the field, never a surprise at run
 * time. The compiling happens off the event loop too: a 1,000-character pattern can take RE2
 * hundreds of milliseconds to compile before its size is known.
 */
export async function checkScorerPatterns(patterns: PatternEngine, workspaceId: string, scorers: ScorerSpec[]): Promise<FieldIssue[]> {
	const issues: FieldIssue[] = [];
	for (const [index, scorer] of scorers.entries()) {
		if (scorer.type === "regex") {
			const problem = await patterns.check(workspaceId, scorer.pattern, scorer.flags);
			if (problem) issues.push({ field: `scorers.${index}.pattern`, issue: problem });
		}
		if (scorer.type === "json" && scorer.schema !== undefined) {
			for (const { path, pattern } of jsonSchemaPatterns(scorer.schema)) {
				const problem = await patterns.check(workspaceId, pattern, "");
				if (problem) issues.push({ field: `scorers.${index}.schema`, issue: `${path}: ${problem}` });
			}
		}
	}
	return issues;
}
