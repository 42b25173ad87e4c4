/**
 * `evaluation …` commands of the operator CLI (scripts/admin.ts): the evaluation use cases with
 * the operator as principal, the same ones the MCP tools call.
 */
import { addEvaluationCase } from "../../server/modules/evaluations/add-evaluation-case";
import { cancelEvaluationRun } from "../../server/modules/evaluations/cancel-evaluation-run";
import { createEvaluationDataset } from "../../server/modules/evaluations/create-evaluation-dataset";
import { deleteEvaluationCase } from "../../server/modules/evaluations/delete-evaluation-case";
import { deleteEvaluationDataset } from "../../server/modules/evaluations/delete-evaluation-dataset";
import { getEvaluationDataset } from "../../server/modules/evaluations/get-evaluation-dataset";
import { getEvaluationRun } from "../../server/modules/evaluations/get-evaluation-run";
import { listEvaluationDatasets } from "../../server/modules/evaluations/list-evaluation-datasets";
import { listEvaluationRuns } from "../../server/modules/evaluations/list-evaluation-runs";
import { startEvaluationRun } from "../../server/modules/evaluations/start-evaluation-run";
import type { UseCaseContext } from "../../server/modules/platform-services";
import { AppError } from "../../server/shared/app-error";

type Flags = Record<string, string | boolean | undefined>;

export const EVALUATION_USAGE = `
  evaluation dataset create --workspace ID --name NAME [--description TEXT]
  evaluation dataset list --workspace ID [--limit N] [--cursor C]
  evaluation dataset get --workspace ID --dataset ID
  evaluation dataset delete --workspace ID --dataset ID
  evaluation case add --workspace ID --dataset ID (--input TEXT | --messages JSON) --scorers JSON [--expected TEXT] [--variables JSON] [--replaces CASE_ID]
  evaluation case delete --workspace ID --case ID
  evaluation run start --workspace ID --dataset ID --slug SLUG (--version N | --environment SLUG | --draft) [--concurrency N]
  evaluation run get --workspace ID --run ID [--compare BASELINE_RUN_ID]
  evaluation run list --workspace ID [--dataset ID] [--limit N] [--cursor C]
  evaluation run cancel --workspace ID --run ID`;

/** The flags these commands read, for parseArgs. */
export const EVALUATION_OPTIONS = {
	dataset: { type: "string" },
	description: { type: "string" },
	input: { type: "string" },
	messages: { type: "string" },
	scorers: { type: "string" },
	expected: { type: "string" },
	replaces: { type: "string" },
	case: { type: "string" },
	draft: { type: "boolean" },
	concurrency: { type: "string" },
	run: { type: "string" },
	compare: { type: "string" },
	limit: { type: "string" },
	cursor: { type: "string" },
} as const;

function text(flags: Flags, name: string): string | undefined {
	const value = flags[name];
	return typeof value === "string" ? value : undefined;
}

/** A flag the use case needs: missing ones are named like the use cases name fields. */
function needed(flags: Flags, name: string): string {
	const value = text(flags, name);
	if (value === undefined || value === "") throw AppError.validation([{ field: `--${name}`, issue: "Required" }]);
	return value;
}

function json(flags: Flags, name: string): unknown {
	const value = text(flags, name);
	if (value === undefined) return undefined;
	try {
		return JSON.parse(value);
	} catch {
		throw AppError.validation([{ field: `--${name}`, issue: "Must be JSON" }]);
	}
}

/** Numbers stay strings if malformed, so the use case names the field. */
function number(flags: Flags, name: string): number | string | undefined {
	const value = text(flags, name);
	return value === undefined ? undefined : Number.isFinite(Number(value)) ? Number(value) : value;
}

function target(flags: Flags): Record<string, unknown> {
	const assistantSlug = needed(flags, "slug");
	if (flags.version !== undefined) return { kind: "version", assistantSlug, version: number(flags, "version") };
	if (flags.environment !== undefined) return { kind: "environment", assistantSlug, environment: text(flags, "environment") };
	if (flags.draft === true) return { kind: "draft", assistantSlug };
	throw AppError.validation([{ field: "--version", issue: "Name what to evaluate: --version N, --environment SLUG or --draft" }]);
}

export const EVALUATION_COMMANDS: Record<string, (context: UseCaseContext, flags: Flags) => Promise<unknown>> = {
	"evaluation dataset create": (context, flags) =>
		createEvaluationDataset(context, { workspaceId: needed(flags, "workspace"), name: needed(flags, "name"), description: text(flags, "description") }),
	"evaluation dataset list": (context, flags) => listEvaluationDatasets(context, { workspaceId: needed(flags, "workspace"), limit: number(flags, "limit"), cursor: text(flags, "cursor") }),
	"evaluation dataset get": (context, flags) => getEvaluationDataset(context, { workspaceId: needed(flags, "workspace"), datasetId: needed(flags, "dataset") }),
	"evaluation dataset delete": (context, flags) => deleteEvaluationDataset(context, { workspaceId: needed(flags, "workspace"), datasetId: needed(flags, "dataset") }),
	"evaluation case add": (context, flags) =>
		addEvaluationCase(context, {
			workspaceId: needed(flags, "workspace"),
			datasetId: needed(flags, "dataset"),
			input: text(flags, "input"),
			messages: json(flags, "messages"),
			variables: json(flags, "variables"),
			expectedOutput: text(flags, "expected"),
			scorers: json(flags, "scorers"),
			replacesCaseId: text(flags, "replaces"),
		}),
	"evaluation case delete": (context, flags) => deleteEvaluationCase(context, { workspaceId: needed(flags, "workspace"), caseId: needed(flags, "case") }),
	"evaluation run start": (context, flags) =>
		startEvaluationRun(context, { workspaceId: needed(flags, "workspace"), datasetId: needed(flags, "dataset"), target: target(flags), concurrency: number(flags, "concurrency") }),
	"evaluation run get": (context, flags) => getEvaluationRun(context, { workspaceId: needed(flags, "workspace"), runId: needed(flags, "run"), compareToRunId: text(flags, "compare") }),
	"evaluation run list": (context, flags) =>
		listEvaluationRuns(context, { workspaceId: needed(flags, "workspace"), datasetId: text(flags, "dataset"), limit: number(flags, "limit"), cursor: text(flags, "cursor") }),
	"evaluation run cancel": (context, flags) => cancelEvaluationRun(context, { workspaceId: needed(flags, "workspace"), runId: needed(flags, "run") }),
};
