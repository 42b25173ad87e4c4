import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { ZTrace, ZTraceSummary, ZUsage } from "../../../../contract/management";
import { managementApi, unwrap } from "../../api/management-client";

export type TraceSummary = z.infer<typeof ZTraceSummary>;
export type Trace = z.infer<typeof ZTrace>;
export type Usage = z.infer<typeof ZUsage>;

/** The trace list's filters, as the URL carries them (a filtered list can be bookmarked and shared). */
export interface TraceSearch {
	assistantId?: string;
	versionId?: string;
	environmentId?: string;
	kind?: "assistant" | "playground" | "execute" | "evaluation";
	principalType?: "api_key" | "user" | "session" | "operator";
	principalId?: string;
	outcome?: "failed" | "succeeded";
	since?: string;
	until?: string;
	/** nextBefore of the page before: this page continues with older traces. */
	before?: string;
}

const KINDS = ["assistant", "playground", "execute", "evaluation"] as const;
const text = (value: unknown) => (typeof value === "string" && value.length > 0 && value.length <= 100 ? value : undefined);

export function traceSearch(search: Record<string, unknown>): TraceSearch {
	return {
		assistantId: text(search.assistantId),
		versionId: text(search.versionId),
		environmentId: text(search.environmentId),
		kind: KINDS.find((kind) => kind === search.kind),
		principalType: (["api_key", "user", "session", "operator"] as const).find((type) => type === search.principalType),
		principalId: text(search.principalId),
		outcome: search.outcome === "failed" || search.outcome === "succeeded" ? search.outcome : undefined,
		since: text(search.since),
		until: text(search.until),
		before: text(search.before),
	};
}

export const PAGE_SIZE = 25;

export const tracesQuery = (workspaceId: string, search: TraceSearch) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "traces", "list", search],
		queryFn: async () => {
			const { outcome, since, until, ...filters } = search;
			const query = {
				...filters,
				...(outcome ? { failed: outcome === "failed" } : {}),
				// datetime-local values are the person's local time; the API takes an instant.
				...(since ? { since: new Date(since).toISOString() } : {}),
				...(until ? { until: new Date(until).toISOString() } : {}),
				limit: PAGE_SIZE,
			};
			return unwrap(await managementApi.traces.listTraces({ params: { workspaceId }, query }));
		},
		placeholderData: keepPreviousData,
	});

export const usageQuery = (workspaceId: string, since: string, until: string) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "usage", since, until],
		queryFn: async () => unwrap(await managementApi.traces.getUsage({ params: { workspaceId }, query: { since, until } })),
		placeholderData: keepPreviousData,
	});

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** Millionths of a dollar as dollars: 1234 -> "$0.001234". */
export function formatCost(microUsd: number): string {
	return usd.format(microUsd / 1_000_000);
}

export function formatLatency(ms: number | null): string {
	if (ms === null) return "–";
	return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** The way a generation was asked for, by the caller's principal. */
export const CALLER_LABELS: Record<string, string> = { api_key: "API key", user: "MCP client", session: "Dashboard", operator: "Operator CLI" };

export const KIND_LABELS: Record<string, string> = { assistant: "Runtime (deployed)", playground: "Playground", execute: "Runtime (ad hoc)", evaluation: "Evaluation" };
