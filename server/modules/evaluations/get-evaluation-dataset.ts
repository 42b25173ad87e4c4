import { EvaluationCaseSchema } from "../../db/entities";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZDatasetRefInput } from "./evaluation-inputs";
import { findLiveDataset } from "./find-evaluation-records";
import { presentEvaluationCase, presentEvaluationDataset } from "./present";

/** MAX_CASES_PER_DATASET bounds this answer: a dataset is read whole. */
export const MAX_CASES_PER_DATASET = 1_000;

/** A dataset with its live cases, oldest first (the order runs use). */
export async function getEvaluationDataset(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZDatasetRefInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:read", input.workspaceId);
	const dataset = await findLiveDataset(context.em, workspaceId, input.datasetId);
	const cases = await context.em.find(EvaluationCaseSchema, { dataset: dataset.id, deletedAt: null }, { orderBy: { createdAt: "asc", id: "asc" } });
	return { ...presentEvaluationDataset(dataset, cases.length), cases: cases.map(presentEvaluationCase) };
}
