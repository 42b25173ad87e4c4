import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { lazy, Suspense } from "react";
import { useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { SelectField } from "../../ui/field";
import { PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { formatCost, formatLatency, type Usage, usageQuery } from "./trace-queries";

/** The charting library is loaded with the charts, in a chunk of its own, only when this page shows them. */
const UsageCharts = lazy(() => import("./usage-charts"));

const RANGES = [
	{ days: 1, label: "Today" },
	{ days: 7, label: "Last 7 days" },
	{ days: 30, label: "Last 30 days" },
	{ days: 90, label: "Last 90 days" },
];

const DAY_MS = 86_400_000;

/** The range's first and last days (UTC, both included), ending today. */
function rangeOf(days: number): { since: string; until: string } {
	const now = Date.now();
	return { since: new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10), until: new Date(now).toISOString().slice(0, 10) };
}

/** Usage of the workspace: requests, errors, tokens, cost (per assistant too), latency percentiles, and the month's spend against the quota. */
export function UsagePage() {
	const { workspace } = useWorkspace();
	const { days = 7 } = useSearch({ strict: false }) as { days?: number };
	const navigate = useNavigate();
	const range = rangeOf(days);
	const usage = useQuery(usageQuery(workspace.id, range.since, range.until));
	return (
		<>
			<PageHeader title="Usage" description="Generations of this workspace day by day (UTC), from the traces: the runtime API, the playground and evaluations." />
			<SelectField
				label="Range"
				value={String(days)}
				onChange={(event) => void navigate({ to: "/workspaces/$workspaceId/usage", params: { workspaceId: workspace.id }, search: { days: Number(event.target.value) } })}
			>
				{RANGES.map((choice) => (
					<option key={choice.days} value={choice.days}>
						{choice.label}
					</option>
				))}
			</SelectField>
			{usage.isPending ? <LoadingState label="Loading usage" /> : null}
			<ErrorAlert error={usage.error} />
			{usage.data ? (
				<>
					<MonthSpend month={usage.data.month} />
					<Totals usage={usage.data} />
					<Suspense fallback={<LoadingState label="Loading charts" />}>
						<UsageCharts usage={usage.data} />
					</Suspense>
					<DailyTable usage={usage.data} />
				</>
			) : null}
		</>
	);
}

function MonthSpend({ month }: { month: Usage["month"] }) {
	const share = month.quotaMicroUsd ? Math.min(month.spentMicroUsd / month.quotaMicroUsd, 1) : null;
	return (
		<Section title={`Spend in ${month.month}`}>
			<p>
				<strong>{formatCost(month.spentMicroUsd)}</strong> spent this month
				{month.quotaMicroUsd === null ? ", no monthly quota." : ` of the ${formatCost(month.quotaMicroUsd)} quota (${Math.round((share ?? 0) * 100)}%).`}
			</p>
			{share !== null ? <meter className="spend-meter" min={0} max={1} low={0.8} high={0.95} optimum={0} value={share} aria-label="Share of the monthly quota spent" /> : null}
		</Section>
	);
}

function Totals({ usage }: { usage: Usage }) {
	const sum = (pick: (day: Usage["days"][number]) => number) => usage.days.reduce((total, day) => total + pick(day), 0);
	return (
		<dl className="metrics usage-totals" aria-label="Totals over the range">
			<div>
				<dt>Requests</dt>
				<dd>{sum((day) => day.requests)}</dd>
			</div>
			<div>
				<dt>Errors</dt>
				<dd>{sum((day) => day.errors)}</dd>
			</div>
			<div>
				<dt>Tokens</dt>
				<dd>{sum((day) => day.inputTokens + day.outputTokens)}</dd>
			</div>
			<div>
				<dt>Cost</dt>
				<dd>{formatCost(sum((day) => day.costMicroUsd))}</dd>
			</div>
		</dl>
	);
}

/** The charts' numbers as a table: exact values, and what a screen reader reads. */
function DailyTable({ usage }: { usage: Usage }) {
	return (
		<details className="section">
			<summary>The numbers, day by day</summary>
			<Table
				caption="Usage per day"
				head={
					<>
						<th scope="col">Day</th>
						<th scope="col">Requests</th>
						<th scope="col">Errors</th>
						<th scope="col">Input tokens</th>
						<th scope="col">Output tokens</th>
						<th scope="col">Cost</th>
						<th scope="col">Latency p50</th>
						<th scope="col">p95</th>
						<th scope="col">p99</th>
					</>
				}
			>
				{usage.days.map((day) => (
					<tr key={day.day}>
						<th scope="row">{day.day}</th>
						<td className="number">{day.requests}</td>
						<td className="number">{day.errors}</td>
						<td className="number">{day.inputTokens}</td>
						<td className="number">{day.outputTokens}</td>
						<td className="number">{formatCost(day.costMicroUsd)}</td>
						<td className="number">{formatLatency(day.latencyP50Ms)}</td>
						<td className="number">{formatLatency(day.latencyP95Ms)}</td>
						<td className="number">{formatLatency(day.latencyP99Ms)}</td>
					</tr>
				))}
			</Table>
		</details>
	);
}
