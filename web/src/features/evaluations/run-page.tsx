import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { formatDateTime } from "../../ui/format";
import { PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { describeTarget, type EvaluationRunDetails, evaluationsKey, formatCost, formatMs, formatPercent, formatScore, isInFlight, runQuery } from "./evaluation-queries";
import { RunStatusBadge } from "./run-status";

/** The trace page of a generation (the Traces area's route). */
export function traceHref(workspaceId: string, traceId: string): string {
	return `/workspaces/${encodeURIComponent(workspaceId)}/traces/${encodeURIComponent(traceId)}`;
}

/** One run: its progress live while it runs, then the pass rate, each scorer's mean, latency, tokens and cost, and every case. */
export function RunPage() {
	const { workspace, role } = useWorkspace();
	const { runId } = useParams({ strict: false }) as { runId: string };
	const queryClient = useQueryClient();
	const run = useQuery(runQuery(workspace.id, runId));
	if (run.isPending) return <LoadingState label="Loading the run" />;
	if (!run.data) return <ErrorAlert error={run.error} />;
	const data = run.data;
	const inFlight = isInFlight(data);
	const scored = data.cases.filter((entry) => entry.result !== null).length;
	return (
		<>
			<p className="small">
				<Link to="/workspaces/$workspaceId/evaluations" params={{ workspaceId: workspace.id }}>
					Evaluations
				</Link>
				{" / "}
				<Link to="/workspaces/$workspaceId/evaluations/datasets/$datasetId" params={{ workspaceId: workspace.id, datasetId: data.datasetId }}>
					Dataset
				</Link>
			</p>
			<PageHeader
				title={`Run of ${describeTarget(data)}`}
				description={`${data.provider} ${data.model} · ${data.caseCount} cases · started ${formatDateTime(data.createdAt)}`}
				actions={
					inFlight && roleAtLeast(role, "member") ? (
						<ConfirmDialog
							trigger={<Button variant="danger">Cancel run</Button>}
							title="Cancel this run?"
							description={<p>The cases already scored are kept; the others are not run.</p>}
							confirmLabel="Cancel run"
							destructive
							onConfirm={async () => {
								unwrap(await managementApi.evaluations.cancelEvaluationRun({ params: { workspaceId: workspace.id, runId } }));
								await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspace.id) });
							}}
						/>
					) : null
				}
			/>
			<div role="status" aria-live="polite" className="run-progress">
				<RunStatusBadge status={data.status} />{" "}
				{inFlight ? (
					<>
						<progress max={data.caseCount} value={scored} aria-label="Cases scored" /> {scored} of {data.caseCount} cases scored
					</>
				) : (
					<span>
						{data.status === "completed" ? `Finished ${formatDateTime(data.finishedAt)}` : null}
						{data.failureReason ? ` ${data.failureReason}` : null}
					</span>
				)}
			</div>
			<ErrorAlert error={run.error} />
			{data.aggregates ? <Aggregates aggregates={data.aggregates} /> : null}
			<Section title="Cases" description={inFlight ? "Each case appears as soon as it is scored." : undefined}>
				<CaseResults workspaceId={workspace.id} run={data} />
			</Section>
		</>
	);
}

function Aggregates({ aggregates }: { aggregates: NonNullable<EvaluationRunDetails["aggregates"]> }) {
	return (
		<Section title="Summary">
			<dl className="metrics">
				<div>
					<dt>Pass rate</dt>
					<dd>
						{formatPercent(aggregates.passRate)} ({aggregates.passedCases} of {aggregates.caseCount})
					</dd>
				</div>
				{Object.entries(aggregates.meanScores).map(([scorer, mean]) => (
					<div key={scorer}>
						<dt>Mean {scorer}</dt>
						<dd>{formatScore(mean)}</dd>
					</div>
				))}
				<div>
					<dt>Errored cases</dt>
					<dd>{aggregates.erroredCases}</dd>
				</div>
				<div>
					<dt>Latency p50</dt>
					<dd>{formatMs(aggregates.latencyMs.p50)}</dd>
				</div>
				<div>
					<dt>Latency p95</dt>
					<dd>{formatMs(aggregates.latencyMs.p95)}</dd>
				</div>
				<div>
					<dt>Tokens</dt>
					<dd>
						{aggregates.totalTokens} ({aggregates.inputTokens} in, {aggregates.outputTokens} out)
					</dd>
				</div>
				<div>
					<dt>Cost</dt>
					<dd>{formatCost(aggregates.costMicroUsd)}</dd>
				</div>
			</dl>
		</Section>
	);
}

function CaseResults({ workspaceId, run }: { workspaceId: string; run: EvaluationRunDetails }) {
	return (
		<Table
			caption="Cases and their results"
			head={
				<>
					<th scope="col">Case</th>
					<th scope="col">Output</th>
					<th scope="col">Result</th>
					<th scope="col">Scores and reasoning</th>
					<th scope="col" className="number">
						Latency, tokens, cost
					</th>
				</>
			}
		>
			{run.cases.map(({ caseId, case: evaluationCase, result }, index) => (
				<tr key={caseId}>
					<th scope="row" className="break">
						<span className="muted small">Case {index + 1}</span>
						<div>{evaluationCase?.input ?? evaluationCase?.messages?.at(-1)?.content ?? caseId}</div>
					</th>
					<td className="break">{result ? (result.output ?? <span className="muted">no output</span>) : <span className="muted">not scored yet</span>}</td>
					<td>
						{result ? result.passed ? <Badge tone="success">Passed</Badge> : result.status === "errored" || result.error ? <Badge tone="warning">Error</Badge> : <Badge tone="danger">Failed</Badge> : null}
						{result?.error ? <div className="small">{result.error}</div> : null}
					</td>
					<td>
						<ul className="plain-list">
							{(result?.scores ?? []).map((score) => (
								<li key={score.scorer}>
									<strong>{score.scorer}</strong>: {formatScore(score.score)} {score.passed === null ? "" : score.passed ? "(passed)" : "(failed)"}
									{score.reasoning ? <div className="small muted">{score.reasoning}</div> : null}
									{score.error ? <div className="small">{score.error}</div> : null}
								</li>
							))}
						</ul>
					</td>
					<td className="number">
						{result ? (
							<>
								<div>{formatMs(result.latencyMs)}</div>
								<div>{result.usage.totalTokens} tokens</div>
								<div>{formatCost(result.costMicroUsd)}</div>
								{result.traceId ? (
									<a href={traceHref(workspaceId, result.traceId)} aria-label={`Trace of case ${index + 1}`}>
										Trace
									</a>
								) : null}
							</>
						) : null}
					</td>
				</tr>
			))}
		</Table>
	);
}
