import { useQuery } from "@tanstack/react-query";
import { Link, useSearch } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { EmptyState, PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { describeTarget, type EvaluationComparison, formatCost, formatPercent, formatScore, isInFlight, runQuery } from "./evaluation-queries";
import type { CompareRunsSearch } from "./routes";
import { RunStatusBadge } from "./run-status";

type Row = EvaluationComparison["cases"][number] & { number: number };
type SortKey = "case" | "baseline" | "candidate" | "difference" | "verdict";

/** Regressions first when sorted by verdict: they are what a person comes to find. */
const VERDICT_ORDER = { regressed: 0, improved: 1, unchanged: 2 } as const;
const VERDICT = {
	regressed: { tone: "danger", label: "Regressed", mark: "▼" },
	improved: { tone: "success", label: "Improved", mark: "▲" },
	unchanged: { tone: "neutral", label: "Unchanged", mark: "=" },
} as const;

const casesCount = (count: number) => `${count} ${count === 1 ? "case" : "cases"}`;

const signed = (value: number | null | undefined, format: (value: number) => string) => (value === null || value === undefined ? "—" : `${value > 0 ? "+" : value < 0 ? "−" : "±"}${format(Math.abs(value))}`);

/** Two runs of one dataset side by side, case by case: what regressed and what improved, in words and marks, sortable. */
export function CompareRunsPage() {
	const { workspace } = useWorkspace();
	const search = useSearch({ strict: false }) as CompareRunsSearch;
	const compared = useQuery({ ...runQuery(workspace.id, search.candidate ?? "", search.baseline), enabled: Boolean(search.baseline && search.candidate) });
	if (!search.baseline || !search.candidate) {
		return (
			<>
				<PageHeader title="Compare runs" />
				<EmptyState title="Choose two runs of a dataset to compare, on the dataset's page." />
			</>
		);
	}
	if (compared.isPending) return <LoadingState label="Loading both runs" />;
	if (!compared.data?.comparison) return <ErrorAlert error={compared.error} />;
	const candidate = compared.data;
	const comparison = compared.data.comparison;
	const baseline = comparison.baselineRun;
	const stillRunning = isInFlight(candidate) || isInFlight(baseline);
	return (
		<>
			<p className="small">
				<Link to="/workspaces/$workspaceId/evaluations/datasets/$datasetId" params={{ workspaceId: workspace.id, datasetId: candidate.datasetId }}>
					Back to the dataset
				</Link>
			</p>
			<PageHeader title="Compare runs" description={`${describeTarget(baseline)} (baseline) against ${describeTarget(candidate)} (candidate), ${comparison.sharedCases} cases in common.`} />
			{stillRunning ? <p role="status">A run is still in progress; this comparison updates as its cases are scored.</p> : null}
			<Section title="Summary">
				<dl className="metrics">
					<div>
						<dt>Baseline</dt>
						<dd>
							<Link to="/workspaces/$workspaceId/evaluations/runs/$runId" params={{ workspaceId: workspace.id, runId: baseline.id }}>
								{describeTarget(baseline)}
							</Link>{" "}
							<RunStatusBadge status={baseline.status} />
						</dd>
					</div>
					<div>
						<dt>Candidate</dt>
						<dd>
							<Link to="/workspaces/$workspaceId/evaluations/runs/$runId" params={{ workspaceId: workspace.id, runId: candidate.id }}>
								{describeTarget(candidate)}
							</Link>{" "}
							<RunStatusBadge status={candidate.status} />
						</dd>
					</div>
					<div>
						<dt>Pass rate</dt>
						<dd>
							{formatPercent(baseline.aggregates?.passRate)} → {formatPercent(candidate.aggregates?.passRate)} ({signed(comparison.aggregateDifference?.passRate, (value) => formatPercent(value))})
						</dd>
					</div>
					<div>
						<dt>Regressed</dt>
						<dd>{casesCount(comparison.regressedCaseIds.length)}</dd>
					</div>
					<div>
						<dt>Improved</dt>
						<dd>{casesCount(comparison.improvedCaseIds.length)}</dd>
					</div>
					<div>
						<dt>Cost</dt>
						<dd>
							{formatCost(baseline.aggregates?.costMicroUsd)} → {formatCost(candidate.aggregates?.costMicroUsd)}
						</dd>
					</div>
				</dl>
			</Section>
			<Section title="Cases" description="Regressed: passed before and not now, or a lower score. Sort by any column.">
				<ComparedCases cases={comparison.cases} />
			</Section>
		</>
	);
}

function ComparedCases({ cases }: { cases: EvaluationComparison["cases"] }) {
	const [sort, setSort] = useState<{ key: SortKey; ascending: boolean }>({ key: "verdict", ascending: true });
	const rows = useMemo(() => {
		const numbered: Row[] = cases.map((entry, index) => ({ ...entry, number: index + 1 }));
		const value = (row: Row): number => {
			switch (sort.key) {
				case "case":
					return row.number;
				case "baseline":
					return row.baseline.score;
				case "candidate":
					return row.candidate.score;
				case "difference":
					return row.scoreDifference;
				case "verdict":
					return VERDICT_ORDER[row.verdict] * 10 + row.scoreDifference;
			}
		};
		return numbered.sort((left, right) => (sort.ascending ? 1 : -1) * (value(left) - value(right)) || left.number - right.number);
	}, [cases, sort]);
	const header = (key: SortKey, label: string, numeric = false) => {
		const active = sort.key === key;
		return (
			<th scope="col" className={numeric ? "number" : undefined} aria-sort={active ? (sort.ascending ? "ascending" : "descending") : "none"}>
				<button type="button" className="sort-button" onClick={() => setSort({ key, ascending: active ? !sort.ascending : true })}>
					{label}
					<span aria-hidden="true">{active ? (sort.ascending ? " ↑" : " ↓") : " ↕"}</span>
				</button>
			</th>
		);
	};
	return (
		<Table
			caption="Cases of both runs"
			head={
				<>
					{header("case", "Case")}
					{header("verdict", "Verdict")}
					{header("baseline", "Baseline score", true)}
					{header("candidate", "Candidate score", true)}
					{header("difference", "Difference", true)}
					<th scope="col">Outputs (baseline, then candidate)</th>
				</>
			}
		>
			{rows.map((row) => {
				const verdict = VERDICT[row.verdict];
				return (
					<tr key={row.caseId} className={`verdict-${row.verdict}`}>
						<th scope="row" className="break">
							<span className="muted small">Case {row.number}</span>
							<div>{row.input ?? row.caseId}</div>
						</th>
						<td>
							<Badge tone={verdict.tone}>
								<span aria-hidden="true">{verdict.mark} </span>
								{verdict.label}
							</Badge>
						</td>
						<td className="number">
							{formatScore(row.baseline.score)} {row.baseline.passed ? "passed" : "failed"}
						</td>
						<td className="number">
							{formatScore(row.candidate.score)} {row.candidate.passed ? "passed" : "failed"}
						</td>
						<td className="number">{signed(row.scoreDifference, (value) => value.toFixed(2))}</td>
						<td className="break">
							<div>
								<span className="muted small">Baseline: </span>
								{row.baseline.output ?? "—"}
							</div>
							<div>
								<span className="muted small">Candidate: </span>
								{row.candidate.output ?? "—"}
							</div>
						</td>
					</tr>
				);
			})}
		</Table>
	);
}
