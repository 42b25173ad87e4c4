import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZDatasetRefInput } from "./evaluation-inputs";
import { findLiveDataset } from "./find-evaluation-records";

/**
 * Marks the dataset deleted: it leaves every list and can no longer be run, while past runs stay
 * readable with the cases they scored. A run still going finishes on its frozen cases.
 */
export async function deleteEvaluationDataset(context: UseCaseContext, rawInput: unknown): Promise<{ id: string; deleted: true }> {
	const input = parseInput(ZDatasetRefInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const dataset = await findLiveDataset(context.em, workspaceId, input.datasetId);
	dataset.deletedAt = new Date();
	await context.em.flush();
	return { id: dataset.id, deleted: true };
}
