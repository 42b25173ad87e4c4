import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZGetEvaluationRunInput } from "./evaluation-inputs";
import { findRun } from "./find-evaluation-records";
import { presentEvaluationRun } from "./present";

/** Stops a queued or running run: cases already scored stay; the worker stops before its next case. */
export async function cancelEvaluationRun(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZGetEvaluationRunInput.omit({ compareToRunId: true }), rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const run = await findRun(context.em, workspaceId, input.runId);
	// Conditional: a run that finished meanwhile keeps its outcome.
	const cancelled: unknown[] = await context.em
		.getConnection()
		.execute("update evaluation_runs set status = 'cancelled', finished_at = now(), updated_at = now() where id = ? and status in ('queued', 'running') returning id", [run.id]);
	if (cancelled.length === 0) throw new AppError("INVALID_REQUEST", `The run is ${run.status === "queued" || run.status === "running" ? "finished" : run.status}; only a queued or running run can be cancelled`);
	await context.em.refresh(run);
	return presentEvaluationRun(run);
}
