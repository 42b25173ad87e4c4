import { EvaluationCaseSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZAddEvaluationCaseInput } from "./evaluation-inputs";
import { findLiveDataset } from "./find-evaluation-records";
import { MAX_CASES_PER_DATASET } from "./get-evaluation-dataset";
import { presentEvaluationCase } from "./present";
import { checkScorerPatterns } from "./scorers/check-scorer-patterns";
import { checkScorerConstructs } from "./scorers/scorer-spec";

/**
 * A new case. Cases never change once written (runs may have scored them): an edit is a new case
 * naming the one it replaces, which leaves the dataset in the same transaction.
 */
export async function addEvaluationCase(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZAddEvaluationCaseInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const constructIssues = checkScorerConstructs(input.scorers);
	if (constructIssues.length > 0) throw AppError.validation(constructIssues);
	const patternIssues = await checkScorerPatterns(context.services.patterns, workspaceId, input.scorers);
	if (patternIssues.length > 0) throw AppError.validation(patternIssues);
	return context.em.transactional(async (tx) => {
		const dataset = await findLiveDataset(tx, workspaceId, input.datasetId);
		// Locks the dataset row: concurrent adds cannot both pass the size check.
		await tx.getConnection().execute("select id from evaluation_datasets where id = ? for update", [dataset.id], "all", tx.getTransactionContext());
		if (input.replacesCaseId !== undefined) {
			const replaced = await tx.findOne(EvaluationCaseSchema, { id: input.replacesCaseId, dataset: dataset.id, deletedAt: null });
			if (!replaced) throw AppError.notFound("Evaluation case to replace");
			replaced.deletedAt = new Date();
		} else if ((await tx.count(EvaluationCaseSchema, { dataset: dataset.id, deletedAt: null })) >= MAX_CASES_PER_DATASET) {
			throw AppError.validation([{ field: "datasetId", issue: `A dataset holds at most ${MAX_CASES_PER_DATASET} cases` }]);
		}
		const created = tx.create(EvaluationCaseSchema, {
			id: newId("evcase"),
			workspace: workspaceId,
			dataset: dataset.id,
			input: input.input ?? null,
			messages: input.messages ?? null,
			variables: input.variables,
			expectedOutput: input.expectedOutput ?? null,
			scorers: input.scorers,
			replacesCase: input.replacesCaseId ?? null,
			deletedAt: null,
		});
		dataset.updatedAt = new Date();
		await tx.flush();
		return presentEvaluationCase(created);
	});
}
