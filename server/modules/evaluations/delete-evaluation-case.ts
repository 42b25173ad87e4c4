import { EvaluationCaseSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZCaseRefInput } from "./evaluation-inputs";

/** Removes the case from its dataset; runs that scored it keep it (the row stays, marked deleted). */
export async function deleteEvaluationCase(context: UseCaseContext, rawInput: unknown): Promise<{ id: string; deleted: true }> {
	const input = parseInput(ZCaseRefInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const found = await context.em.findOne(EvaluationCaseSchema, { id: input.caseId, workspace: workspaceId, deletedAt: null });
	if (!found) throw AppError.notFound("Evaluation case");
	found.deletedAt = new Date();
	await context.em.flush();
	return { id: found.id, deleted: true };
}
