import { EvaluationRunSchema } from "../../db/entities";
import { decodeCursor, toPage } from "../../shared/pagination";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZListEvaluationRunsInput } from "./evaluation-inputs";
import { presentEvaluationRun } from "./present";

/** The workspace's runs (of one dataset, when named), newest first, a page at a time; runs of deleted datasets included. */
export async function listEvaluationRuns(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZListEvaluationRunsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:read", input.workspaceId);
	const before = decodeCursor(input.cursor);
	const rows = await context.em.find(
		EvaluationRunSchema,
		{ workspace: workspaceId, ...(input.datasetId ? { dataset: input.datasetId } : {}), ...(before ? { id: { $lt: before } } : {}) },
		{ orderBy: { id: "desc" }, limit: input.limit + 1 },
	);
	return toPage(rows, input.limit, presentEvaluationRun);
}
