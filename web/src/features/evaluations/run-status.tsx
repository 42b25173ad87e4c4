import { Link } from "@tanstack/react-router";
import { Badge } from "../../ui/badge";
import { formatDateTime } from "../../ui/format";
import { Table } from "../../ui/table";
import { describeTarget, type EvaluationRun, formatPercent } from "./evaluation-queries";

const TONE = { queued: "neutral", running: "info", completed: "success", failed: "danger", cancelled: "warning" } as const;
const LABEL = { queued: "Queued", running: "Running", completed: "Completed", failed: "Failed", cancelled: "Cancelled" } as const;

/** A run's status in words (the colour only repeats it). */
export function RunStatusBadge({ status }: { status: EvaluationRun["status"] }) {
	return <Badge tone={TONE[status]}>{LABEL[status]}</Badge>;
}

/** Runs, newest first: what each evaluated, its status (updated live while any runs) and pass rate. */
export function RunsTable({ workspaceId, runs, caption, datasetNames }: { workspaceId: string; runs: EvaluationRun[]; caption: string; datasetNames?: Map<string, string> }) {
	return (
		<Table
			caption={caption}
			head={
				<>
					<th scope="col">Started</th>
					{datasetNames ? <th scope="col">Dataset</th> : null}
					<th scope="col">Evaluated</th>
					<th scope="col">Status</th>
					<th scope="col" className="number">
						Pass rate
					</th>
				</>
			}
		>
			{runs.map((run) => (
				<tr key={run.id}>
					<td>
						<Link to="/workspaces/$workspaceId/evaluations/runs/$runId" params={{ workspaceId, runId: run.id }}>
							{formatDateTime(run.createdAt)}
						</Link>
					</td>
					{datasetNames ? <td>{datasetNames.get(run.datasetId) ?? <span className="muted">Deleted dataset</span>}</td> : null}
					<td>
						{describeTarget(run)}
						<div className="muted small">
							{run.provider} {run.model}
						</div>
					</td>
					<td>
						<RunStatusBadge status={run.status} />
					</td>
					<td className="number">{run.aggregates ? formatPercent(run.aggregates.passRate) : "—"}</td>
				</tr>
			))}
		</Table>
	);
}
