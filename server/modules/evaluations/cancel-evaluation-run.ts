import { AppError } from "../../shared/app-error";
import type { Principal } from "../../shared/principal";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZCancelEvaluationRunInput } from "./evaluation-inputs";
import { findRun } from "./find-evaluation-records";
import { presentEvaluationRun } from "./present";

function cancelledBy(principal: Principal): string {
	switch (principal.kind) {
		case "user":
		case "session":
			return `Cancelled by user ${principal.userId}`;
		case "api_key":
			return `Cancelled with API key ${principal.apiKeyId}`;
		case "operator":
			return "Cancelled by the operator";
	}
}

/**
 * cancel_evaluation_run (CLI `evaluation run cancel`): stops a queued or running run. Cases
 * already scored stay; the worker starts no new case (a case being generated finishes and is
 * kept). The run reads cancelled, with who cancelled it as its reason.
 */
export async function cancelEvaluationRun(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZCancelEvaluationRunInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const run = await findRun(context.em, workspaceId, input.runId);
	// Conditional: a run that finished meanwhile keeps its outcome.
	const cancelled: unknown[] = await context.em
		.getConnection()
		.execute("update evaluation_runs set status = 'cancelled', failure_reason = ?, finished_at = now(), updated_at = now() where id = ? and status in ('queued', 'running') returning id", [
			cancelledBy(context.principal),
			run.id,
		]);
	if (cancelled.length === 0) throw new AppError("INVALID_REQUEST", `The run is ${run.status === "queued" || run.status === "running" ? "finished" : run.status}; only a queued or running run can be cancelled`);
	await context.em.refresh(run);
	return presentEvaluationRun(run);
}
