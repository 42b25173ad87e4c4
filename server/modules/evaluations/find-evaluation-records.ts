import type { EntityManager } from "@mikro-orm/postgresql";
import { type EvaluationDataset, EvaluationDatasetSchema, type EvaluationRun, EvaluationRunSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";

/** A dataset of the workspace that was not deleted; anything else is NOT_FOUND (ids never leak across workspaces). */
export async function findLiveDataset(em: EntityManager, workspaceId: string, datasetId: string): Promise<EvaluationDataset> {
	const dataset = await em.findOne(EvaluationDatasetSchema, { id: datasetId, workspace: workspaceId, deletedAt: null });
	if (!dataset) throw AppError.notFound("Evaluation dataset");
	return dataset;
}

export async function findRun(em: EntityManager, workspaceId: string, runId: string): Promise<EvaluationRun> {
	const run = await em.findOne(EvaluationRunSchema, { id: runId, workspace: workspaceId });
	if (!run) throw AppError.notFound("Evaluation run");
	return run;
}

/** Live cases per dataset id. */
export async function countLiveCases(em: EntityManager, datasetIds: string[]): Promise<Map<string, number>> {
	if (datasetIds.length === 0) return new Map();
	const rows: { dataset_id: string; count: number }[] = await em
		.getConnection()
		.execute(`select dataset_id, count(*)::int as count from evaluation_cases where dataset_id in (${datasetIds.map(() => "?").join(", ")}) and deleted_at is null group by dataset_id`, datasetIds);
	return new Map(rows.map((row) => [row.dataset_id, row.count]));
}

