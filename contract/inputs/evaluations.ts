import { PROVIDER_NAMES } from "../schemas/runtime";
import { z } from "../zod";

/**
 * The inputs of the evaluation use cases (server/modules/evaluations), checked by the use cases on
 * entry; the MCP tools publish their shapes, the operator CLI derives its flags from those tools,
 * and the management API builds its routes from them (workspaceId comes from the path). What needs
 * the pattern engine (RE2 constructs, the JSON Schema subset, compiling) the use case checks after.
 */
const workspaceId = z.string().min(1).optional().describe("Workspace to act on (required except for API keys)");
const pageInput = () => ({
	limit: z.number().int().min(1).max(100).default(20).describe("Page size, 1 to 100; default 20"),
	cursor: z.string().optional().describe("nextCursor of the previous page"),
});

/** Characters of one tenant-supplied regular expression (server/modules/evaluations/scorers/tenant-pattern.ts bounds the rest). */
export const SCORER_PATTERN_LENGTH = 1_000;

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
			.max(SCORER_PATTERN_LENGTH)
			.describe("Regular expression found anywhere in the output, in RE2 syntax (JavaScript's without backreferences or lookaround); matched in linear time"),
		flags: z
			.string()
			.regex(/^[imsu]*$/, "Only the flags i, m, s and u")
			.max(4)
			.default("")
			.describe("Any of i (ignore case), m (^ and $ at line ends), s (. matches newlines), u (no effect: matching is always by code point)"),
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
		provider: z.enum(PROVIDER_NAMES).describe("Provider of the grading model, on the workspace's credential"),
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

/** One scorer's structure; the use case also checks its patterns (RE2 constructs, the JSON Schema subset). */
export const ZScorerSpecShape = z.discriminatedUnion("type", [ZExactMatchScorer, ZContainsScorer, ZRegexScorer, ZJsonScorer, ZNumericScorer, ZRubricScorer, ZToolCalledScorer]);
export type ScorerSpec = z.infer<typeof ZScorerSpecShape>;
export const SCORER_TYPES = ["exact_match", "contains", "regex", "json", "numeric", "rubric"] as const;

export const ZCreateEvaluationDatasetInput = z
	.object({
		workspaceId,
		name: z.string().trim().min(1).max(200).describe("Dataset name"),
		description: z.string().max(2_000).nullable().optional().describe("What the dataset checks"),
	})
	.strict();

export const ZListEvaluationDatasetsInput = z.object({ workspaceId, ...pageInput() }).strict();

export const ZDatasetRefInput = z.object({ workspaceId, datasetId: z.string().min(1).describe("Dataset id") }).strict();

const ZCaseMessage = z.object({ role: z.enum(["system", "user", "assistant"]), content: z.string().max(200_000) }).strict();

/** The shape alone (tools publish it); ZAddEvaluationCaseInput adds the rules across fields. */
export const ADD_EVALUATION_CASE_SHAPE = {
	workspaceId,
	datasetId: z.string().min(1).describe("Dataset id"),
	input: z.string().min(1).max(200_000).optional().describe("The runtime input, as a deployed assistant receives it; give this or messages"),
	messages: z.array(ZCaseMessage).min(1).max(200).optional().describe("A conversation sent after the assistant's system prompt; give this or input"),
	variables: z
		.record(z.union([z.string().max(20_000), z.number(), z.boolean()]))
		.default({})
		.describe("Values for the assistant's prompt variables"),
	expectedOutput: z.string().max(200_000).nullable().optional().describe("A reference answer for the scorers that compare against one"),
	scorers: z.array(ZScorerSpecShape).min(1).max(20).describe("One or more scorers: exact_match, contains, regex, json, numeric, rubric, tool_called"),
	replacesCaseId: z.string().min(1).optional().describe("Edit: the case this one replaces (that case is removed from the dataset; past runs keep it)"),
};

type CaseFields = { input?: string; messages?: unknown[]; scorers: { name?: string; type: string }[] };

/** The rules across a case's fields, for the whole input and for the dashboard's body alike. */
export function refineEvaluationCase(value: CaseFields, issues: z.RefinementCtx) {
	if ((value.input === undefined) === (value.messages === undefined)) {
		issues.addIssue({ code: z.ZodIssueCode.custom, path: ["input"], message: "Give exactly one of input and messages" });
	}
	const names = value.scorers.map((scorer) => scorer.name ?? scorer.type);
	const repeated = names.find((scorerName, index) => names.indexOf(scorerName) !== index);
	if (repeated) issues.addIssue({ code: z.ZodIssueCode.custom, path: ["scorers"], message: `Two scorers are named '${repeated}': give each a distinct name` });
}

export const ZAddEvaluationCaseInput = z.object(ADD_EVALUATION_CASE_SHAPE).strict().superRefine(refineEvaluationCase);

export const ZCaseRefInput = z.object({ workspaceId, caseId: z.string().min(1).describe("Case id") }).strict();

export const ZEvaluationTargetInput = z
	.discriminatedUnion("kind", [
		z.object({ kind: z.literal("version"), assistantSlug: z.string().min(1), version: z.number().int().min(1) }).strict(),
		z.object({ kind: z.literal("draft"), assistantSlug: z.string().min(1) }).strict(),
		z.object({ kind: z.literal("environment"), assistantSlug: z.string().min(1), environment: z.string().min(1).default("production") }).strict(),
	])
	.describe("What to evaluate: a version, the draft, or what an environment serves; resolved and frozen when the run starts");

export const ZStartEvaluationRunInput = z
	.object({
		workspaceId,
		datasetId: z.string().min(1).describe("Dataset id"),
		target: ZEvaluationTargetInput,
		concurrency: z.number().int().min(1).max(16).default(4).describe("Cases generated at once; default 4"),
	})
	.strict();

export const ZListEvaluationRunsInput = z.object({ workspaceId, datasetId: z.string().min(1).optional().describe("Only runs of this dataset"), ...pageInput() }).strict();

export const ZGetEvaluationRunInput = z
	.object({
		workspaceId,
		runId: z.string().min(1).describe("Run id"),
		compareToRunId: z.string().min(1).optional().describe("A baseline run of the same dataset: the answer then holds both side by side, case by case, with regressions"),
	})
	.strict();

export const ZCancelEvaluationRunInput = z.object({ workspaceId, runId: z.string().min(1).describe("Run id") }).strict();
