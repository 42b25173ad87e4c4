import { z } from "zod";
import { AppError } from "../../shared/app-error";
import { ZScorerSpec } from "./scorers/scorer-spec";

/**
 * The inputs of the evaluation use cases, checked by the use cases themselves so every transport
 * (MCP tools, the operator CLI) gets the same rules and the same VALIDATION_ERROR fields.
 */
const workspaceId = z.string().min(1).optional().describe("Workspace to act on (required except for API keys)");
const ZPageInput = {
	limit: z.number().int().min(1).max(100).default(20).describe("Page size, 1 to 100; default 20"),
	cursor: z.string().optional().describe("nextCursor of the previous page"),
};

export const ZCreateEvaluationDatasetInput = z
	.object({
		workspaceId,
		name: z.string().trim().min(1).max(200).describe("Dataset name"),
		description: z.string().max(2_000).nullable().optional().describe("What the dataset checks"),
	})
	.strict();

export const ZListEvaluationDatasetsInput = z.object({ workspaceId, ...ZPageInput }).strict();

export const ZDatasetRefInput = z.object({ workspaceId, datasetId: z.string().min(1).describe("Dataset id") }).strict();

const ZCaseMessage = z.object({ role: z.enum(["system", "user", "assistant"]), content: z.string().max(200_000) }).strict();

/** The shape alone (tools publish it); ZAddEvaluationCaseInput adds the rules across fields. */
export const ADD_EVALUATION_CASE_SHAPE = {
	workspaceId,
	datasetId: z.string().min(1).describe("Dataset id"),
	input: z.string().min(1).max(200_000).optional().describe("The runtime input, as a deployed assistant receives it; give this or messages"),
	messages: z.array(ZCaseMessage).min(1).max(200).optional().describe("A conversation sent after the assistant's system prompt; give this or input"),
	variables: z.record(z.union([z.string().max(20_000), z.number(), z.boolean()])).default({}).describe("Values for the assistant's prompt variables"),
	expectedOutput: z.string().max(200_000).nullable().optional().describe("A reference answer for the scorers that compare against one"),
	scorers: z.array(ZScorerSpec).min(1).max(20).describe("One or more scorers: exact_match, contains, regex, json, numeric, rubric"),
	replacesCaseId: z.string().min(1).optional().describe("Edit: the case this one replaces (that case is removed from the dataset; past runs keep it)"),
};

export const ZAddEvaluationCaseInput = z
	.object(ADD_EVALUATION_CASE_SHAPE)
	.strict()
	.superRefine((value, issues) => {
		if ((value.input === undefined) === (value.messages === undefined)) {
			issues.addIssue({ code: z.ZodIssueCode.custom, path: ["input"], message: "Give exactly one of input and messages" });
		}
		const names = value.scorers.map((scorer) => scorer.name ?? scorer.type);
		const repeated = names.find((name, index) => names.indexOf(name) !== index);
		if (repeated) issues.addIssue({ code: z.ZodIssueCode.custom, path: ["scorers"], message: `Two scorers are named '${repeated}': give each a distinct name` });
	});

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

export const ZListEvaluationRunsInput = z
	.object({ workspaceId, datasetId: z.string().min(1).optional().describe("Only runs of this dataset"), ...ZPageInput })
	.strict();

export const ZGetEvaluationRunInput = z
	.object({
		workspaceId,
		runId: z.string().min(1).describe("Run id"),
		compareToRunId: z.string().min(1).optional().describe("A baseline run of the same dataset: the answer then holds both side by side, case by case, with regressions"),
	})
	.strict();

export const ZCancelEvaluationRunInput = z.object({ workspaceId, runId: z.string().min(1).describe("Run id") }).strict();

/** Parses a use case's input; every offender named, as the HTTP pipeline names them. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown): z.output<T> {
	const parsed = schema.safeParse(input);
	if (!parsed.success) {
		throw AppError.validation(parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "input", issue: issue.message })));
	}
	return parsed.data;
}
