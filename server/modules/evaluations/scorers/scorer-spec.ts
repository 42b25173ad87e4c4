import { z } from "zod";
import { PROVIDERS } from "../../../db/entities";
import { checkJsonSchemaSubset } from "./json-schema-subset";
import { PATTERN_FLAGS, PATTERN_LIMITS, unsupportedConstruct } from "./tenant-pattern";

// A fresh schema per scorer: one zod instance met twice in a tool's JSON Schema is written as a `$ref`, which some MCP clients do not follow.
const name = () => z.string().min(1).max(100).optional().describe("How aggregates name this scorer; defaults to its type");

export const ZExactMatchScorer = z
	.object({
		type: z.literal("exact_match"),
		name: name(),
		caseSensitive: z.boolean().default(true).describe("Default true"),
		trim: z.boolean().default(true).describe("Ignore leading and trailing whitespace; default true"),
	})
	.strict();

export const ZContainsScorer = z
	.object({
		type: z.literal("contains"),
		name: name(),
		value: z.string().min(1).max(10_000).optional().describe("Text the output must contain; defaults to the case's expected output"),
		caseSensitive: z.boolean().default(false).describe("Default false"),
	})
	.strict();

export const ZRegexScorer = z
	.object({
		type: z.literal("regex"),
		name: name(),
		pattern: z
			.string()
			.min(1)
			.max(PATTERN_LIMITS.patternLength)
			.describe("Regular expression found anywhere in the output, in RE2 syntax (JavaScript's without backreferences or lookaround); matched in linear time"),
		flags: z.string().regex(PATTERN_FLAGS, "Only the flags i, m, s and u").max(4).default("").describe("Any of i (ignore case), m (^ and $ at line ends), s (. matches newlines), u (no effect: matching is always by code point)"),
	})
	.strict();

export const ZJsonScorer = z
	.object({
		type: z.literal("json"),
		name: name(),
		// An object of any fields (`additionalProperties: true`): a record of z.unknown() reads as "anything" to MCP clients.
		schema: z.object({}).passthrough().optional().describe("Optional JSON Schema (the documented subset, `pattern` included) the parsed output must satisfy"),
	})
	.strict();

export const ZNumericScorer = z
	.object({
		type: z.literal("numeric"),
		name: name(),
		expected: z.number().finite().optional().describe("Defaults to the case's expected output read as a number"),
		tolerance: z.number().finite().min(0).default(0).describe("Largest absolute difference that passes; default 0"),
		relativeTolerance: z.number().finite().min(0).max(1).optional().describe("Largest difference as a fraction of the expected value"),
	})
	.strict();

export const ZRubricScorer = z
	.object({
		type: z.literal("rubric"),
		name: name(),
		criteria: z.string().min(1).max(20_000).describe("What a good answer does; the grader scores the output against it from 0 to 1"),
		provider: z.enum(PROVIDERS).describe("Provider of the grading model, on the workspace's credential"),
		model: z.string().min(1).max(200).describe("Grading model"),
		passThreshold: z.number().min(0).max(1).default(0.5).describe("Scores at or above it pass; default 0.5"),
	})
	.strict();

export const ZToolCalledScorer = z
	.object({
		type: z.literal("tool_called"),
		name: name(),
		tool: z.string().min(1).max(200).describe("The tool the assistant must have called (an MCP server's tools as <name>_<tool>)"),
		arguments: z
			.object({})
			.passthrough()
			.optional()
			.describe("Arguments the call must have had, as a subset: each listed one equal (objects compared as subsets too); others are free"),
	})
	.strict();

export const ZScorerSpec = z
	.discriminatedUnion("type", [ZExactMatchScorer, ZContainsScorer, ZRegexScorer, ZJsonScorer, ZNumericScorer, ZRubricScorer, ZToolCalledScorer])
	.superRefine((spec, issues) => {
		if (spec.type === "regex") {
			const problem = unsupportedConstruct(spec.pattern);
			if (problem) issues.addIssue({ code: z.ZodIssueCode.custom, path: ["pattern"], message: problem });
		}
		if (spec.type === "json" && spec.schema !== undefined) {
			const problem = checkJsonSchemaSubset(spec.schema);
			if (problem) issues.addIssue({ code: z.ZodIssueCode.custom, path: ["schema"], message: problem });
		}
	});
export type ScorerSpec = z.infer<typeof ZScorerSpec>;
export const SCORER_TYPES = ["exact_match", "contains", "regex", "json", "numeric", "rubric"] as const;

/** How aggregates and comparisons name a scorer. */
export function scorerName(spec: { name?: string; type: string }): string {
	return spec.name ?? spec.type;
}
