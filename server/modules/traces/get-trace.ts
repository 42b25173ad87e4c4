import type { z } from "zod";
import { ZGetTraceInput } from "../../../contract/inputs/traces";
import { TraceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { summarizeTrace, type TraceSummary } from "./list-traces";

/** One generation with its content: the messages and config sent, the output, the error (content is null when the workspace does not store it). */
export async function getTrace(
	context: UseCaseContext,
	rawInput: z.input<typeof ZGetTraceInput>,
): Promise<TraceSummary & { timeToFirstTokenMs: number | null; totalTokens: number; input: unknown; output: string | null; steps: unknown; errorMessage: string | null }> {
	const input = parseInput(ZGetTraceInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "traces:read", input.workspaceId);
	const find = () => context.em.findOne(TraceSchema, { id: input.traceId, workspace: workspaceId });
	// Traces are written in batches: one this process has not written yet is written now, not missed.
	const trace = (await find()) ?? (await context.services.traces.written(input.traceId).then(find));
	if (!trace) throw AppError.notFound("Trace");
	return {
		...summarizeTrace(trace),
		timeToFirstTokenMs: trace.timeToFirstTokenMs,
		totalTokens: trace.totalTokens,
		input: trace.input,
		output: trace.output,
		steps: trace.steps,
		errorMessage: trace.errorMessage,
	};
}
