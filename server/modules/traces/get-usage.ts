import type { z } from "zod";
import { MAX_USAGE_DAYS, ZGetUsageInput } from "../../../contract/inputs/traces";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { monthOf } from "../quotas/consume-request-quota";

export interface UsageDay {
	day: string;
	requests: number;
	errors: number;
	inputTokens: number;
	outputTokens: number;
	costMicroUsd: number;
	latencyP50Ms: number | null;
	latencyP95Ms: number | null;
	latencyP99Ms: number | null;
}

export interface UsageByAssistant {
	day: string;
	assistantId: string | null;
	assistantName: string | null;
	requests: number;
	costMicroUsd: number;
}

export interface Usage {
	since: string;
	until: string;
	days: UsageDay[];
	byAssistant: UsageByAssistant[];
	/** This calendar month (UTC): what was spent, against the quota (null: none). */
	month: { month: string; spentMicroUsd: number; quotaMicroUsd: number | null };
}

const DAY_MS = 86_400_000;

/** Every day from `since` to `until` (both included), YYYY-MM-DD. */
function daysBetween(since: Date, until: Date): string[] {
	const days: string[] = [];
	for (let at = since.getTime(); at <= until.getTime(); at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
	return days;
}

/**
 * The workspace's generations day by day (UTC) over a range: requests, errors, tokens, cost and
 * latency percentiles, cost and requests per assistant, and the month's spend against its quota.
 * Days without generations are present with zeros, so a chart shows the gap.
 */
export async function getUsage(context: UseCaseContext, rawInput: z.input<typeof ZGetUsageInput>): Promise<Usage> {
	const input = parseInput(ZGetUsageInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "traces:read", input.workspaceId);
	const since = new Date(`${input.since}T00:00:00Z`);
	const until = new Date(`${input.until}T00:00:00Z`);
	if (Number.isNaN(since.getTime())) throw AppError.validation([{ field: "since", issue: "Not a date" }]);
	if (Number.isNaN(until.getTime())) throw AppError.validation([{ field: "until", issue: "Not a date" }]);
	if (until < since) throw AppError.validation([{ field: "until", issue: "Before since" }]);
	if ((until.getTime() - since.getTime()) / DAY_MS + 1 > MAX_USAGE_DAYS) throw AppError.validation([{ field: "until", issue: `At most ${MAX_USAGE_DAYS} days at once` }]);
	const end = new Date(until.getTime() + DAY_MS);
	const connection = context.em.getConnection();
	const dayRows: Record<string, string | number | null>[] = await connection.execute(
		`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as requests, count(error_code) as errors,
		        coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens, coalesce(sum(cost_micro_usd), 0) as cost,
		        percentile_cont(0.5) within group (order by latency_ms) as p50,
		        percentile_cont(0.95) within group (order by latency_ms) as p95,
		        percentile_cont(0.99) within group (order by latency_ms) as p99
		   from traces where workspace = ? and created_at >= ? and created_at < ? group by 1`,
		[workspaceId, since, end],
	);
	const assistantRows: Record<string, string | number | null>[] = await connection.execute(
		`select to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, t.assistant, a.name, count(*) as requests, coalesce(sum(t.cost_micro_usd), 0) as cost
		   from traces t left join assistants a on a.id = t.assistant
		  where t.workspace = ? and t.created_at >= ? and t.created_at < ? group by 1, 2, 3 order by 1, 3`,
		[workspaceId, since, end],
	);
	const month = monthOf(new Date());
	const spendRows: { quota: string | null; spent: string | null }[] = await connection.execute(
		`select w.monthly_spend_quota_micro_usd as quota, (select s.cost_micro_usd from workspace_monthly_spend s where s.workspace = w.id and s.month = ?) as spent
		   from workspaces w where w.id = ?`,
		[month, workspaceId],
	);
	const byDay = new Map(dayRows.map((row) => [String(row.day), row]));
	const rounded = (value: string | number | null | undefined) => (value === null || value === undefined ? null : Math.round(Number(value)));
	const quota = spendRows[0]?.quota ?? null;
	return {
		since: input.since,
		until: input.until,
		days: daysBetween(since, until).map((day) => {
			const row = byDay.get(day);
			return {
				day,
				requests: Number(row?.requests ?? 0),
				errors: Number(row?.errors ?? 0),
				inputTokens: Number(row?.input_tokens ?? 0),
				outputTokens: Number(row?.output_tokens ?? 0),
				costMicroUsd: Number(row?.cost ?? 0),
				latencyP50Ms: rounded(row?.p50),
				latencyP95Ms: rounded(row?.p95),
				latencyP99Ms: rounded(row?.p99),
			};
		}),
		byAssistant: assistantRows.map((row) => ({
			day: String(row.day),
			assistantId: row.assistant === null ? null : String(row.assistant),
			assistantName: row.name === null ? null : String(row.name),
			requests: Number(row.requests),
			costMicroUsd: Number(row.cost),
		})),
		month: {
			month: month.slice(0, 7),
			spentMicroUsd: Number(spendRows[0]?.spent ?? 0),
			quotaMicroUsd: quota === null ? context.services.settings.quotas.monthlySpendQuotaMicroUsd : Number(quota),
		},
	};
}
