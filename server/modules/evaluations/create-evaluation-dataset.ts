import { EvaluationDatasetSchema } from "../../db/entities";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZCreateEvaluationDatasetInput } from "./evaluation-inputs";
import { presentEvaluationDataset } from "./present";

/** An empty dataset; cases are added one at a time (addEvaluationCase). */
export async function createEvaluationDataset(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZCreateEvaluationDatasetInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const dataset = context.em.create(EvaluationDatasetSchema, { id: newId("evds"), workspace: workspaceId, name: input.name, description: input.description ?? null, deletedAt: null });
	await context.em.flush();
	return presentEvaluationDataset(dataset, 0);
}
