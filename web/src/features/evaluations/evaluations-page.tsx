import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { TextAreaField, TextField } from "../../ui/field";
import { FormDialog } from "../../ui/form-dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { datasetsQuery, evaluationsKey, runsQuery } from "./evaluation-queries";
import { RunsTable } from "./run-status";

/** Evaluations: the workspace's datasets, a new one, and the latest runs. */
export function EvaluationsPage() {
	const { workspace, role } = useWorkspace();
	const datasets = useQuery(datasetsQuery(workspace.id));
	const runs = useQuery(runsQuery(workspace.id));
	const canWrite = roleAtLeast(role, "member");
	const names = new Map((datasets.data?.data ?? []).map((dataset) => [dataset.id, dataset.name]));
	return (
		<>
			<PageHeader
				title="Evaluations"
				description="A dataset holds cases (an input and how to score the answer); a run scores every case against a version, the draft or an environment, and two runs compare case by case."
				actions={canWrite ? <CreateDatasetDialog workspaceId={workspace.id} /> : null}
			/>
			{canWrite ? null : <p className="muted">Your role ({role}) can read evaluations; changing datasets and starting runs needs member or above.</p>}
			<Section title="Datasets">
				{datasets.isPending ? <LoadingState label="Loading datasets" /> : null}
				<ErrorAlert error={datasets.error} />
				{datasets.data && datasets.data.data.length === 0 ? (
					<EmptyState title="No datasets yet.">
						<p>{canWrite ? "Create one, add cases, then run it against a version of an assistant." : "A member of the organization creates them."}</p>
					</EmptyState>
				) : null}
				{datasets.data && datasets.data.data.length > 0 ? (
					<Table
						caption="Datasets"
						head={
							<>
								<th scope="col">Dataset</th>
								<th scope="col" className="number">
									Cases
								</th>
								<th scope="col">Updated</th>
							</>
						}
					>
						{datasets.data.data.map((dataset) => (
							<tr key={dataset.id}>
								<td>
									<Link to="/workspaces/$workspaceId/evaluations/datasets/$datasetId" params={{ workspaceId: workspace.id, datasetId: dataset.id }}>
										{dataset.name}
									</Link>
									{dataset.description ? <div className="muted small">{dataset.description}</div> : null}
								</td>
								<td className="number">{dataset.caseCount}</td>
								<td>{formatDateTime(dataset.updatedAt)}</td>
							</tr>
						))}
					</Table>
				) : null}
			</Section>
			<Section title="Latest runs" description="Updated live while a run is in progress.">
				<ErrorAlert error={runs.error} />
				{runs.data && runs.data.data.length === 0 ? <p className="muted">No runs yet.</p> : null}
				{runs.data && runs.data.data.length > 0 ? <RunsTable workspaceId={workspace.id} runs={runs.data.data} caption="Latest runs" datasetNames={names} /> : null}
			</Section>
		</>
	);
}

function CreateDatasetDialog({ workspaceId }: { workspaceId: string }) {
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState("");
	const [description, setDescription] = useState("");
	const create = useMutation({
		mutationFn: async () =>
			unwrap(await managementApi.evaluations.createEvaluationDataset({ params: { workspaceId }, body: { name, ...(description.trim() ? { description: description.trim() } : {}) } })),
		onSuccess: async (created) => {
			await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspaceId) });
			setOpen(false);
			await navigate({ to: "/workspaces/$workspaceId/evaluations/datasets/$datasetId", params: { workspaceId, datasetId: created.id } });
		},
	});
	return (
		<FormDialog
			open={open}
			setOpen={setOpen}
			mutation={create}
			title="New dataset"
			description="Empty at first: add cases one by one or import them from a CSV or JSON Lines file."
			trigger={<Button>New dataset</Button>}
			fields={["name", "description"]}
			submitLabel="Create dataset"
		>
			{(issue) => (
				<>
					<TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={issue("name")} required autoFocus />
					<TextAreaField label="Description" optional value={description} onChange={(event) => setDescription(event.target.value)} error={issue("description")} rows={3} />
				</>
			)}
		</FormDialog>
	);
}
