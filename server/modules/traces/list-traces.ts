import type { FilterQuery } from "@mikro-orm/core";
import type { z } from "zod";
import { ZListTracesInput } from "../../../contract/inputs/traces";
import { type Trace, TraceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

export interface TraceSummary {
	id: string;
	kind: string;
	principalType: string;
	principalId: string | null;
	assistantId: string | null;
	versionId: string | null;
	environmentId: string | null;
	provider: string;
	model: string;
	streamed: boolean;
	latencyMs: number;
	inputTokens: number;
	outputTokens: number;
	costMicroUsd: number;
	finishReason: string | null;
	errorCode: string | null;
	createdAt: string;
}

export type TraceFilters = z.input<typeof ZListTracesInput>;

export function summarizeTrace(trace: Omit<Trace, "input" | "output">): TraceSummary {
	return {
		id: trace.id,
		kind: trace.kind,
		principalType: trace.principalType,
		principalId: trace.principalId,
		assistantId: trace.assistant,
		versionId: trace.version,
		environmentId: trace.environment,
		provider: trace.provider,
		model: trace.model,
		streamed: trace.streamed,
		latencyMs: trace.latencyMs,
		inputTokens: trace.inputTokens,
		outputTokens: trace.outputTokens,
		costMicroUsd: trace.costMicroUsd,
		finishReason: trace.finishReason,
		errorCode: trace.errorCode,
		createdAt: trace.createdAt.toISOString(),
	};
}

function parseInstant(value: string | undefined, field: string): Date | undefined {
	if (value === undefined) return undefined;
	const date = new Date(value);
	if (Number.isNaN(date.getTime())) throw AppError.validation([{ field, issue: "Not an ISO-8601 date-time" }]);
	return date;
}

/** Newest first, metadata only (get_trace has the content); paged by the last id seen. */
export async function listTraces(context: UseCaseContext, rawInput: TraceFilters): Promise<{ traces: TraceSummary[]; nextBefore: string | null }> {
	const { em } = context;
	const input = parseInput(ZListTracesInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "traces:read", input.workspaceId);
	const limit = Math.min(Math.max(input.limit ?? 20, 1), 100);
	const since = parseInstant(input.since, "since");
	const until = parseInstant(input.until, "until");
	const where: FilterQuery<Trace> = { workspace: workspaceId };
	const and: FilterQuery<Trace>[] = [];
	if (input.assistantId) and.push({ assistant: input.assistantId });
	if (input.versionId) and.push({ version: input.versionId });
	if (input.environmentId) and.push({ environment: input.environmentId });
	if (input.kind) and.push({ kind: input.kind });
	if (input.principalType) and.push({ principalType: input.principalType });
	if (input.principalId) and.push({ principalId: input.principalId });
	if (input.failed === true) and.push({ errorCode: { $ne: null } });
	if (input.failed === false) and.push({ errorCode: null });
	if (since) and.push({ createdAt: { $gte: since } });
	if (until) and.push({ createdAt: { $lt: until } });
	if (input.before) {
		const cursor = await em.findOne(TraceSchema, { id: input.before, workspace: workspaceId }, { fields: ["id", "createdAt"] });
		if (!cursor) throw AppError.validation([{ field: "before", issue: "Not a trace of this workspace" }]);
		and.push({ $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }] });
	}
	const rows = await em.find(TraceSchema, and.length > 0 ? { $and: [where, ...and] } : where, {
		orderBy: { createdAt: "desc", id: "desc" },
		limit: limit + 1,
		exclude: ["input", "output"],
	});
	const page = rows.slice(0, limit);
	return { traces: page.map(summarizeTrace), nextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}
