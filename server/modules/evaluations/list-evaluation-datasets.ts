import { EvaluationDatasetSchema } from "../../db/entities";
import { decodeCursor, toPage } from "../../shared/pagination";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZListEvaluationDatasetsInput } from "./evaluation-inputs";
import { countLiveCases } from "./find-evaluation-records";
import { presentEvaluationDataset } from "./present";

/** The workspace's datasets (deleted ones left out), newest first, a page at a time. */
export async function listEvaluationDatasets(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZListEvaluationDatasetsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:read", input.workspaceId);
	const before = decodeCursor(input.cursor);
	const rows = await context.em.find(
		EvaluationDatasetSchema,
		{ workspace: workspaceId, deletedAt: null, ...(before ? { id: { $lt: before } } : {}) },
		{ orderBy: { id: "desc" }, limit: input.limit + 1 },
	);
	const counts = await countLiveCases(context.em, rows.map((row) => row.id));
	return toPage(rows, input.limit, (row) => presentEvaluationDataset(row, counts.get(row.id) ?? 0));
}
