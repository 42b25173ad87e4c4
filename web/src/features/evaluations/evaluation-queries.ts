import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { ZEvaluationCase, ZEvaluationComparison, ZEvaluationDataset, ZEvaluationResult, ZEvaluationRun, ZEvaluationRunDetails } from "../../../../contract/management";
import { managementApi, unwrap } from "../../api/management-client";

export type EvaluationDataset = z.infer<typeof ZEvaluationDataset>;
export type EvaluationCase = z.infer<typeof ZEvaluationCase>;
export type EvaluationRun = z.infer<typeof ZEvaluationRun>;
export type EvaluationRunDetails = z.infer<typeof ZEvaluationRunDetails>;
export type EvaluationResult = z.infer<typeof ZEvaluationResult>;
export type EvaluationComparison = z.infer<typeof ZEvaluationComparison>;

/** Every query key of one workspace's evaluations starts with this, so a change refreshes them together. */
export const evaluationsKey = (workspaceId: string) => ["workspaces", workspaceId, "evaluations"] as const;

export const IN_FLIGHT: readonly EvaluationRun["status"][] = ["queued", "running"];
export const isInFlight = (run: { status: EvaluationRun["status"] }) => IN_FLIGHT.includes(run.status);

/**
 * How long to wait before asking again while something runs: 1 s, then half as long again each
 * time up to 5 s; nothing once it is over (the query stops polling by itself).
 */
export function pollingDelay(inFlight: boolean, updates: number): number | false {
	return inFlight ? Math.min(1_000 * 1.5 ** Math.max(0, updates - 1), 5_000) : false;
}

export const datasetsQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: [...evaluationsKey(workspaceId), "datasets"],
		queryFn: async () => unwrap(await managementApi.evaluations.listEvaluationDatasets({ params: { workspaceId }, query: { limit: 100 } })),
	});

export const datasetQuery = (workspaceId: string, datasetId: string) =>
	queryOptions({
		queryKey: [...evaluationsKey(workspaceId), "datasets", datasetId],
		queryFn: async () => unwrap(await managementApi.evaluations.getEvaluationDataset({ params: { workspaceId, datasetId } })),
	});

export const runsQuery = (workspaceId: string, datasetId?: string) =>
	queryOptions({
		queryKey: [...evaluationsKey(workspaceId), "runs", { datasetId }],
		queryFn: async () => unwrap(await managementApi.evaluations.listEvaluationRuns({ params: { workspaceId }, query: { datasetId, limit: 50 } })),
		refetchInterval: (query) => pollingDelay((query.state.data?.data ?? []).some(isInFlight), query.state.dataUpdateCount),
	});

export const runQuery = (workspaceId: string, runId: string, compareToRunId?: string) =>
	queryOptions({
		queryKey: [...evaluationsKey(workspaceId), "runs", runId, { compareToRunId }],
		queryFn: async () => unwrap(await managementApi.evaluations.getEvaluationRun({ params: { workspaceId, runId }, query: { compareToRunId } })),
		refetchInterval: (query) => {
			const run = query.state.data;
			const inFlight = run ? isInFlight(run) || (run.comparison !== null && isInFlight(run.comparison.baselineRun)) : false;
			return pollingDelay(inFlight, query.state.dataUpdateCount);
		},
	});

/** "openai gpt-4o-mini, version 2 of orbit": what a run evaluated, in words. */
export function describeTarget(run: Pick<EvaluationRun, "target">): string {
	const { target } = run;
	if (target.kind === "version") return `${target.assistantSlug} version ${target.version}`;
	if (target.kind === "draft") return `${target.assistantSlug} draft`;
	return `${target.assistantSlug} in ${target.environment ?? "production"}`;
}

export function formatPercent(value: number | null | undefined): string {
	return value === null || value === undefined ? "—" : `${Math.round(value * 1000) / 10}%`;
}

export function formatScore(value: number | null | undefined): string {
	return value === null || value === undefined ? "—" : value.toFixed(2);
}

/** Millionths of a US dollar as dollars, with enough digits for a fraction of a cent. */
export function formatCost(microUsd: number | null | undefined): string {
	if (microUsd === null || microUsd === undefined) return "—";
	return `$${(microUsd / 1_000_000).toFixed(microUsd < 10_000 ? 6 : 4)}`;
}

export function formatMs(value: number | null | undefined): string {
	return value === null || value === undefined ? "—" : `${Math.round(value)} ms`;
}
