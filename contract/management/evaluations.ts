import { c, metadata } from "../common";
import {
	ADD_EVALUATION_CASE_SHAPE,
	refineEvaluationCase,
	ZCancelEvaluationRunInput,
	ZCaseRefInput,
	ZCreateEvaluationDatasetInput,
	ZDatasetRefInput,
	ZGetEvaluationRunInput,
	ZListEvaluationDatasetsInput,
	ZListEvaluationRunsInput,
	ZStartEvaluationRunInput,
} from "../inputs/evaluations";
import { workspaceId } from "../inputs/fields";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";
import { fromUrlNumber } from "./from-input";

export const ZEvaluationDataset = z
	.object({
		id: z.string(),
		name: z.string(),
		description: z.string().nullable(),
		/** Live cases (deleted ones left out). */
		caseCount: z.number().int(),
		createdAt: z.string().datetime(),
		updatedAt: z.string().datetime(),
	})
	.openapi("EvaluationDataset");

/** A scorer as stored: its type, optional name and the type's own settings (contract/inputs/evaluations.ts). */
const ZStoredScorer = z.object({ type: z.string(), name: z.string().optional() }).passthrough();

export const ZEvaluationCase = z
	.object({
		id: z.string(),
		datasetId: z.string(),
		input: z.string().nullable(),
		messages: z.array(z.object({ role: z.string(), content: z.string() })).nullable(),
		variables: z.record(z.union([z.string(), z.number(), z.boolean()])),
		expectedOutput: z.string().nullable(),
		scorers: z.array(ZStoredScorer),
		replacesCaseId: z.string().nullable(),
		deleted: z.boolean(),
		createdAt: z.string().datetime(),
	})
	.openapi("EvaluationCase");

export const ZEvaluationDatasetDetails = ZEvaluationDataset.extend({ cases: z.array(ZEvaluationCase) }).openapi("EvaluationDatasetDetails");

export const ZEvaluationAggregates = z
	.object({
		caseCount: z.number(),
		scoredCases: z.number(),
		passedCases: z.number(),
		failedCases: z.number(),
		/** Cases whose generation or a scorer failed (see each result's error). */
		erroredCases: z.number(),
		/** Passed cases over all cases, 0..1. */
		passRate: z.number(),
		/** Mean score per scorer name. */
		meanScores: z.record(z.number()),
		latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
		inputTokens: z.number(),
		outputTokens: z.number(),
		totalTokens: z.number(),
		/** Generations and grading, in millionths of a US dollar. */
		costMicroUsd: z.number(),
	})
	.openapi("EvaluationAggregates");

export const ZEvaluationRun = z
	.object({
		id: z.string(),
		datasetId: z.string(),
		/** queued -> running -> completed, failed or cancelled. */
		status: z.enum(["queued", "running", "completed", "failed", "cancelled"]),
		/** What was evaluated, as named at start: {kind: version|draft|environment, assistantSlug, version?, environment?}. */
		target: z.object({ kind: z.enum(["version", "draft", "environment"]), assistantSlug: z.string(), version: z.number().int().optional(), environment: z.string().optional() }),
		assistantId: z.string(),
		/** The version the run froze; null for the draft. */
		versionId: z.string().nullable(),
		provider: z.string(),
		model: z.string(),
		caseCount: z.number().int(),
		concurrency: z.number().int(),
		/** Set when the run ends. */
		aggregates: ZEvaluationAggregates.nullable(),
		failureReason: z.string().nullable(),
		startedBy: z.object({ kind: z.string(), userId: z.string().optional(), apiKeyId: z.string().optional() }),
		createdAt: z.string().datetime(),
		startedAt: z.string().datetime().nullable(),
		finishedAt: z.string().datetime().nullable(),
	})
	.openapi("EvaluationRun");

export const ZEvaluationScore = z
	.object({
		scorer: z.string(),
		type: z.string(),
		score: z.number().nullable(),
		passed: z.boolean().nullable(),
		reasoning: z.string(),
		error: z.string().nullable(),
	})
	.openapi("EvaluationScore");

export const ZEvaluationResult = z
	.object({
		caseId: z.string(),
		status: z.string(),
		output: z.string().nullable(),
		/** The mean of the case's scorers (0..1). */
		score: z.number().nullable(),
		passed: z.boolean(),
		scores: z.array(ZEvaluationScore),
		error: z.string().nullable(),
		latencyMs: z.number().nullable(),
		usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }),
		costMicroUsd: z.number(),
		/** The generation's trace (the dashboard's trace page). */
		traceId: z.string().nullable(),
	})
	.openapi("EvaluationResult");

const ZRunStanding = z.object({ status: z.string(), score: z.number(), passed: z.boolean(), output: z.string().nullable() });

export const ZEvaluationComparison = z
	.object({
		baselineRun: ZEvaluationRun,
		sharedCases: z.number().int(),
		onlyInCandidate: z.array(z.string()),
		onlyInBaseline: z.array(z.string()),
		aggregateDifference: z
			.object({ passRate: z.number(), meanScores: z.record(z.number().nullable()), costMicroUsd: z.number(), latencyP50Ms: z.number().nullable() })
			.nullable(),
		regressedCaseIds: z.array(z.string()),
		improvedCaseIds: z.array(z.string()),
		cases: z.array(
			z.object({
				caseId: z.string(),
				input: z.string().nullable(),
				candidate: ZRunStanding,
				baseline: ZRunStanding,
				/** Candidate minus baseline. */
				scoreDifference: z.number(),
				scorers: z.array(z.object({ scorer: z.string(), candidate: z.number().nullable(), baseline: z.number().nullable(), difference: z.number().nullable() })),
				/** regressed: passed before and not now, or a lower score; improved: the reverse. */
				verdict: z.enum(["regressed", "improved", "unchanged"]),
			}),
		),
	})
	.openapi("EvaluationComparison");

export const ZEvaluationRunDetails = ZEvaluationRun.extend({
	cases: z.array(z.object({ caseId: z.string(), case: ZEvaluationCase.nullable(), result: ZEvaluationResult.nullable() })),
	/** With compareToRunId: the two runs side by side, case by case. */
	comparison: ZEvaluationComparison.nullable(),
}).openapi("EvaluationRunDetails");

const page = <T extends z.ZodTypeAny>(item: T) => z.object({ data: z.array(item), hasMore: z.boolean(), nextCursor: z.string().nullable() });
const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const startErrors = { ...errors, 409: ZErrorEnvelope, 429: ZErrorEnvelope };

// The inputs' workspaceId is optional (API keys name none); the dashboard's paths always name it.
const workspacePath = z.object({ workspaceId });
const datasetPath = workspacePath.extend({ datasetId: ZDatasetRefInput.shape.datasetId });
const tags = ["Evaluations"];
const DATASETS = "/management/workspaces/:workspaceId/evaluation-datasets";
const RUNS = "/management/workspaces/:workspaceId/evaluation-runs";

/** The case's fields as a body: the dataset (and, to replace, the case) come from the path. */
const caseBody = (omitReplaces: boolean) =>
	z
		.object(ADD_EVALUATION_CASE_SHAPE)
		.omit(omitReplaces ? { workspaceId: true, datasetId: true, replacesCaseId: true } : { workspaceId: true, datasetId: true })
		.strict()
		.superRefine(refineEvaluationCase);

/**
 * Evaluations in the dashboard: datasets, their cases, runs and comparisons. Every route calls the
 * use case the MCP tool of the same purpose calls, with the input schema both take from
 * contract/inputs/evaluations.ts.
 */
export const evaluationsContract = c.router({
	listEvaluationDatasets: {
		method: "GET",
		path: DATASETS,
		summary: "The workspace's datasets, newest first, a page at a time, with their live case counts",
		pathParams: workspacePath,
		query: z.object({ limit: fromUrlNumber(ZListEvaluationDatasetsInput.shape.limit), cursor: ZListEvaluationDatasetsInput.shape.cursor }),
		responses: { 200: page(ZEvaluationDataset), ...errors },
		metadata: metadata({ operationId: "listEvaluationDatasets", tags, session: "required" }),
	},
	createEvaluationDataset: {
		method: "POST",
		path: DATASETS,
		summary: "A new, empty dataset",
		pathParams: workspacePath,
		body: ZCreateEvaluationDatasetInput.omit({ workspaceId: true }),
		responses: { 201: ZEvaluationDataset, ...errors },
		metadata: metadata({ operationId: "createEvaluationDataset", tags, session: "required" }),
	},
	getEvaluationDataset: {
		method: "GET",
		path: `${DATASETS}/:datasetId`,
		summary: "A dataset with every live case: input or messages, variables, expected output and scorers",
		pathParams: datasetPath,
		responses: { 200: ZEvaluationDatasetDetails, ...errors },
		metadata: metadata({ operationId: "getEvaluationDataset", tags, session: "required" }),
	},
	deleteEvaluationDataset: {
		method: "DELETE",
		path: `${DATASETS}/:datasetId`,
		summary: "Deletes a dataset; its past runs stay readable",
		pathParams: datasetPath,
		body: c.noBody(),
		responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "deleteEvaluationDataset", tags, session: "required" }),
	},
	addEvaluationCase: {
		method: "POST",
		path: `${DATASETS}/:datasetId/cases`,
		summary: "Adds a case: input (or messages), optional variables and expected output, and one or more scorers",
		pathParams: datasetPath,
		body: caseBody(false),
		responses: { 201: ZEvaluationCase, ...errors },
		metadata: metadata({ operationId: "addEvaluationCase", tags, session: "required" }),
	},
	replaceEvaluationCase: {
		method: "PUT",
		path: `${DATASETS}/:datasetId/cases/:caseId`,
		summary: "Replaces a case (cases never change: the new one takes its place in the dataset; past runs keep the old one)",
		pathParams: datasetPath.extend({ caseId: ZCaseRefInput.shape.caseId }),
		body: caseBody(true),
		responses: { 201: ZEvaluationCase, ...errors },
		metadata: metadata({ operationId: "replaceEvaluationCase", tags, session: "required" }),
	},
	deleteEvaluationCase: {
		method: "DELETE",
		path: "/management/workspaces/:workspaceId/evaluation-cases/:caseId",
		summary: "Removes a case from its dataset; past runs keep it",
		pathParams: workspacePath.extend({ caseId: ZCaseRefInput.shape.caseId }),
		body: c.noBody(),
		responses: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "deleteEvaluationCase", tags, session: "required" }),
	},
	startEvaluationRun: {
		method: "POST",
		path: `${DATASETS}/:datasetId/runs`,
		summary: "Runs the dataset's cases against a version, the draft or what an environment serves, in the background",
		pathParams: datasetPath,
		body: ZStartEvaluationRunInput.omit({ workspaceId: true, datasetId: true }),
		responses: { 201: ZEvaluationRun, ...startErrors },
		metadata: metadata({ operationId: "startEvaluationRun", tags, session: "required" }),
	},
	listEvaluationRuns: {
		method: "GET",
		path: RUNS,
		summary: "The workspace's runs (of one dataset with datasetId), newest first, a page at a time",
		pathParams: workspacePath,
		query: z.object({ datasetId: ZListEvaluationRunsInput.shape.datasetId, limit: fromUrlNumber(ZListEvaluationRunsInput.shape.limit), cursor: ZListEvaluationRunsInput.shape.cursor }),
		responses: { 200: page(ZEvaluationRun), ...errors },
		metadata: metadata({ operationId: "listEvaluationRuns", tags, session: "required" }),
	},
	getEvaluationRun: {
		method: "GET",
		path: `${RUNS}/:runId`,
		summary: "A run with its aggregates and every case's output, scores and trace; with compareToRunId, side by side with that baseline",
		pathParams: workspacePath.extend({ runId: ZGetEvaluationRunInput.shape.runId }),
		query: z.object({ compareToRunId: ZGetEvaluationRunInput.shape.compareToRunId }),
		responses: { 200: ZEvaluationRunDetails, ...errors },
		metadata: metadata({ operationId: "getEvaluationRun", tags, session: "required" }),
	},
	cancelEvaluationRun: {
		method: "POST",
		path: `${RUNS}/:runId/cancel`,
		summary: "Stops a queued or running run; the cases already scored are kept",
		pathParams: workspacePath.extend({ runId: ZCancelEvaluationRunInput.shape.runId }),
		body: c.noBody(),
		responses: { 200: ZEvaluationRun, ...errors },
		metadata: metadata({ operationId: "cancelEvaluationRun", tags, session: "required" }),
	},
});
