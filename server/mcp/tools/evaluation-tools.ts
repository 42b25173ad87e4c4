import { z } from "zod";
import { addEvaluationCase } from "../../modules/evaluations/add-evaluation-case";
import { cancelEvaluationRun } from "../../modules/evaluations/cancel-evaluation-run";
import { createEvaluationDataset } from "../../modules/evaluations/create-evaluation-dataset";
import { deleteEvaluationCase } from "../../modules/evaluations/delete-evaluation-case";
import { deleteEvaluationDataset } from "../../modules/evaluations/delete-evaluation-dataset";
import {
	ADD_EVALUATION_CASE_SHAPE,
	ZCancelEvaluationRunInput,
	ZCaseRefInput,
	ZCreateEvaluationDatasetInput,
	ZDatasetRefInput,
	ZGetEvaluationRunInput,
	ZListEvaluationDatasetsInput,
	ZListEvaluationRunsInput,
	ZStartEvaluationRunInput,
} from "../../../contract/inputs/evaluations";
import { getEvaluationDataset } from "../../modules/evaluations/get-evaluation-dataset";
import { getEvaluationRun } from "../../modules/evaluations/get-evaluation-run";
import { listEvaluationDatasets } from "../../modules/evaluations/list-evaluation-datasets";
import { listEvaluationRuns } from "../../modules/evaluations/list-evaluation-runs";
import { startEvaluationRun } from "../../modules/evaluations/start-evaluation-run";
import { defineTool, DESTRUCTIVE, GENERATES, type McpTool, READ_ONLY, WRITES } from "../tool-definition";
import { jsonObject, nullable } from "./fields";

/** The tools' answers are the use cases' answers; these shapes name the fields a model relies on. */
const DATASET = {
	id: z.string().describe("Dataset id"),
	name: z.string(),
	description: nullable(z.string()),
	caseCount: z.number().describe("Live cases (deleted ones left out)"),
	createdAt: z.string(),
	updatedAt: z.string(),
};
const CASE = {
	id: z.string().describe("Case id"),
	datasetId: z.string(),
	input: nullable(z.string()),
	messages: z.array(z.object({ role: z.string(), content: z.string() })).nullable(),
	expectedOutput: nullable(z.string()),
	scorers: z.array(jsonObject()),
	replacesCaseId: nullable(z.string()),
	deleted: z.boolean(),
};
const RUN = {
	id: z.string().describe("Run id"),
	datasetId: z.string(),
	status: z.enum(["queued", "running", "completed", "failed", "cancelled"]).describe("queued -> running -> completed, failed or cancelled"),
	target: jsonObject().describe("What was evaluated, as named at start"),
	versionId: nullable(z.string()).describe("The version the run froze; null for the draft"),
	provider: z.string(),
	model: z.string(),
	caseCount: z.number(),
	aggregates: z
		.object({
			caseCount: z.number(),
			scoredCases: z.number(),
			passedCases: z.number(),
			failedCases: z.number(),
			erroredCases: z.number().describe("Cases whose generation or a scorer failed (see each result's error)"),
			passRate: z.number().describe("Passed cases over all cases, 0..1"),
			meanScores: z.record(z.number()).describe("Mean score per scorer name"),
			latencyMs: z.object({ p50: nullable(z.number()), p95: nullable(z.number()) }),
			inputTokens: z.number(),
			outputTokens: z.number(),
			totalTokens: z.number(),
			costMicroUsd: z.number().describe("Generations and grading, in millionths of a US dollar"),
		})
		.nullable()
		.describe("Set when the run ends: pass rate, mean score per scorer, latency p50/p95, tokens, cost"),
	failureReason: nullable(z.string()).describe("Why the run failed or was cancelled (who cancelled it, or what its starter lost)"),
};
const page = (item: z.ZodRawShape) => ({
	data: z.array(z.object(item).passthrough()),
	hasMore: z.boolean(),
	nextCursor: nullable(z.string()).describe("Pass as cursor for the next page"),
});
const DELETED = { id: z.string(), deleted: z.literal(true) };

const listEvaluationDatasetsTool = defineTool({
	name: "list_evaluation_datasets",
	title: "List evaluation datasets",
	description: "The workspace's evaluation datasets with their case counts, newest first.",
	inputSchema: ZListEvaluationDatasetsInput.shape,
	outputSchema: page(DATASET),
	annotations: READ_ONLY,
	permission: "evaluations:read",
	run: (context, input) => listEvaluationDatasets(context, input),
});

const getEvaluationDatasetTool = defineTool({
	name: "get_evaluation_dataset",
	title: "Get an evaluation dataset",
	description: "A dataset with every live case: input or messages, variables, expected output and scorers.",
	inputSchema: ZDatasetRefInput.shape,
	outputSchema: { ...DATASET, cases: z.array(z.object(CASE).passthrough()) },
	annotations: READ_ONLY,
	permission: "evaluations:read",
	run: (context, input) => getEvaluationDataset(context, input),
});

const createEvaluationDatasetTool = defineTool({
	name: "create_evaluation_dataset",
	title: "Create an evaluation dataset",
	description: "An empty dataset; then add cases with add_evaluation_case and run it with run_evaluation.",
	inputSchema: ZCreateEvaluationDatasetInput.shape,
	outputSchema: DATASET,
	annotations: WRITES,
	permission: "evaluations:write",
	run: (context, input) => createEvaluationDataset(context, input),
});

const deleteEvaluationDatasetTool = defineTool({
	name: "delete_evaluation_dataset",
	title: "Delete an evaluation dataset",
	description: "Removes the dataset from lists and from new runs; past runs stay readable with the cases they scored.",
	inputSchema: ZDatasetRefInput.shape,
	outputSchema: DELETED,
	annotations: DESTRUCTIVE,
	permission: "evaluations:write",
	run: (context, input) => deleteEvaluationDataset(context, input),
});

const addEvaluationCaseTool = defineTool({
	name: "add_evaluation_case",
	title: "Add an evaluation case",
	description:
		"Adds a case: `input` (or `messages`), optional `variables` and `expectedOutput`, and one or more scorers: exact_match, contains, regex (RE2 syntax, matched in linear time: no backreferences or lookaround), json (optionally with a schema), numeric (tolerance), rubric (criteria graded 0..1 by a provider and model you pick), tool_called (the assistant called a tool, optionally with a subset of arguments). Cases never change: to edit one, add its replacement with replacesCaseId.",
	inputSchema: ADD_EVALUATION_CASE_SHAPE,
	outputSchema: CASE,
	annotations: WRITES,
	permission: "evaluations:write",
	run: (context, input) => addEvaluationCase(context, input),
});

const deleteEvaluationCaseTool = defineTool({
	name: "delete_evaluation_case",
	title: "Delete an evaluation case",
	description: "Removes a case from its dataset; runs that scored it keep it.",
	inputSchema: ZCaseRefInput.shape,
	outputSchema: DELETED,
	annotations: DESTRUCTIVE,
	permission: "evaluations:write",
	run: (context, input) => deleteEvaluationCase(context, input),
});

const runEvaluationTool = defineTool({
	name: "run_evaluation",
	title: "Run an evaluation",
	description:
		"Runs every case of a dataset against an assistant version, its draft, or what an environment serves (frozen at start), in the background. Costs money (generations and model-graded scoring, counted against the workspace's spend quota). Poll get_evaluation_run until status is completed; stop it with cancel_evaluation_run; compare two runs with its compareToRunId. The run is cancelled if you lose access (leave the organization, drop below member, revoke this connection).",
	inputSchema: ZStartEvaluationRunInput.shape,
	outputSchema: RUN,
	annotations: GENERATES,
	permission: "evaluations:write",
	run: (context, input) => startEvaluationRun(context, input),
});

const cancelEvaluationRunTool = defineTool({
	name: "cancel_evaluation_run",
	title: "Cancel an evaluation run",
	description:
		"Stops a queued or running evaluation run: no new case is generated (a case already being generated finishes), cases already scored keep their results, and the run reads cancelled with who cancelled it. A finished run cannot be cancelled.",
	inputSchema: ZCancelEvaluationRunInput.shape,
	outputSchema: RUN,
	annotations: DESTRUCTIVE,
	permission: "evaluations:write",
	run: (context, input) => cancelEvaluationRun(context, input),
});

const getEvaluationRunTool = defineTool({
	name: "get_evaluation_run",
	title: "Get an evaluation run",
	description:
		"A run's status, aggregates and per-case results (output, each scorer's score and reasoning, latency, tokens, cost, trace id, error). With compareToRunId (a baseline run of the same dataset): both side by side per case, score differences, and regressedCaseIds / improvedCaseIds.",
	inputSchema: ZGetEvaluationRunInput.shape,
	outputSchema: {
		...RUN,
		cases: z.array(z.object({ caseId: z.string(), case: jsonObject().nullable(), result: jsonObject().nullable() })),
		comparison: z
			.object({ regressedCaseIds: z.array(z.string()), improvedCaseIds: z.array(z.string()), cases: z.array(jsonObject()) })
			.passthrough()
			.nullable()
			.describe("Present when compareToRunId was given"),
	},
	annotations: READ_ONLY,
	permission: "evaluations:read",
	run: (context, input) => getEvaluationRun(context, input),
});

const listEvaluationRunsTool = defineTool({
	name: "list_evaluation_runs",
	title: "List evaluation runs",
	description: "The workspace's evaluation runs (of one dataset, when given), newest first, with status and aggregates.",
	inputSchema: ZListEvaluationRunsInput.shape,
	outputSchema: page(RUN),
	annotations: READ_ONLY,
	permission: "evaluations:read",
	run: (context, input) => listEvaluationRuns(context, input),
});

export const EVALUATION_TOOLS: McpTool[] = [
	listEvaluationRunsTool,
	getEvaluationRunTool,
	listEvaluationDatasetsTool,
	getEvaluationDatasetTool,
	runEvaluationTool,
	cancelEvaluationRunTool,
	createEvaluationDatasetTool,
	deleteEvaluationDatasetTool,
	addEvaluationCaseTool,
	deleteEvaluationCaseTool,
] as McpTool[];
