import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert, FormErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { SelectField } from "../../ui/field";
import { EmptyState, PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { assistantListQuery, environmentsQuery, versionsQuery } from "../assistants/assistant-queries";
import { CaseDialog } from "./case-dialog";
import { datasetQuery, describeTarget, type EvaluationCase, evaluationsKey, runsQuery } from "./evaluation-queries";
import { ImportCasesDialog } from "./import-cases-dialog";
import { RunsTable } from "./run-status";
import { describeScorer } from "./scorer-drafts";

/** One dataset: its cases (add, import, replace, delete), runs against a version, the draft or an environment, and two runs compared. */
export function DatasetPage() {
	const { workspace, role } = useWorkspace();
	const { datasetId } = useParams({ strict: false }) as { datasetId: string };
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const dataset = useQuery(datasetQuery(workspace.id, datasetId));
	const runs = useQuery(runsQuery(workspace.id, datasetId));
	const canWrite = roleAtLeast(role, "member");
	if (dataset.isPending) return <LoadingState label="Loading the dataset" />;
	if (!dataset.data) return <ErrorAlert error={dataset.error} />;
	const cases = dataset.data.cases;
	const deleteDataset = async () => {
		unwrap(await managementApi.evaluations.deleteEvaluationDataset({ params: { workspaceId: workspace.id, datasetId } }));
		await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspace.id) });
		await navigate({ to: "/workspaces/$workspaceId/evaluations", params: { workspaceId: workspace.id } });
	};
	return (
		<>
			<p className="small">
				<Link to="/workspaces/$workspaceId/evaluations" params={{ workspaceId: workspace.id }}>
					Evaluations
				</Link>
			</p>
			<PageHeader
				title={dataset.data.name}
				description={dataset.data.description ?? undefined}
				actions={
					canWrite ? (
						<ConfirmDialog
							trigger={<Button variant="danger">Delete dataset</Button>}
							title={`Delete “${dataset.data.name}”?`}
							description={<p>Its {cases.length} cases leave the list of datasets; the runs already made keep them and stay readable.</p>}
							confirmLabel="Delete dataset"
							destructive
							onConfirm={deleteDataset}
						/>
					) : null
				}
			/>
			{canWrite ? null : <p className="muted">Your role ({role}) can read this dataset and its runs; changing it and starting runs needs member or above.</p>}
			<Section
				title="Cases"
				description={`${cases.length} ${cases.length === 1 ? "case" : "cases"}.`}
				actions={
					canWrite ? (
						<>
							<ImportCasesDialog workspaceId={workspace.id} datasetId={datasetId} />
							<CaseDialog workspaceId={workspace.id} datasetId={datasetId} trigger={<Button>Add case</Button>} />
						</>
					) : null
				}
			>
				{cases.length === 0 ? (
					<EmptyState title="No cases yet.">
						<p>{canWrite ? "Add one, or import a CSV or JSON Lines file." : "A member of the organization adds them."}</p>
					</EmptyState>
				) : (
					<CasesTable workspaceId={workspace.id} datasetId={datasetId} cases={cases} canWrite={canWrite} />
				)}
			</Section>
			{canWrite && cases.length > 0 ? <StartRunForm workspaceId={workspace.id} datasetId={datasetId} /> : null}
			<Section title="Runs" description="Updated live while a run is in progress.">
				<ErrorAlert error={runs.error} />
				{runs.data && runs.data.data.length === 0 ? <p className="muted">No runs of this dataset yet.</p> : null}
				{runs.data && runs.data.data.length > 0 ? (
					<>
						<RunsTable workspaceId={workspace.id} runs={runs.data.data} caption="Runs of this dataset" />
						{runs.data.data.length > 1 ? <CompareRunsForm workspaceId={workspace.id} runs={runs.data.data} /> : null}
					</>
				) : null}
			</Section>
		</>
	);
}

function CasesTable({ workspaceId, datasetId, cases, canWrite }: { workspaceId: string; datasetId: string; cases: EvaluationCase[]; canWrite: boolean }) {
	const queryClient = useQueryClient();
	return (
		<Table
			caption="Cases"
			head={
				<>
					<th scope="col">Input</th>
					<th scope="col">Expected output</th>
					<th scope="col">Scorers</th>
					{canWrite ? <th scope="col">Actions</th> : null}
				</>
			}
		>
			{cases.map((entry, index) => {
				const summary = entry.input ?? entry.messages?.map((message) => `${message.role}: ${message.content}`).join(" / ") ?? "";
				return (
					<tr key={entry.id}>
						<td className="break">{summary}</td>
						<td className="break">{entry.expectedOutput ?? <span className="muted">none</span>}</td>
						<td>
							<ul className="plain-list">
								{entry.scorers.map((spec) => (
									<li key={spec.name ?? spec.type}>{describeScorer(spec)}</li>
								))}
							</ul>
						</td>
						{canWrite ? (
							<td>
								<div className="row">
									<CaseDialog
										workspaceId={workspaceId}
										datasetId={datasetId}
										replacing={entry}
										trigger={
											<Button variant="secondary" size="small" aria-label={`Replace case ${index + 1}`}>
												Replace
											</Button>
										}
									/>
									<ConfirmDialog
										trigger={
											<Button variant="ghost" size="small" aria-label={`Delete case ${index + 1}`}>
												Delete
											</Button>
										}
										title={`Delete case ${index + 1}?`}
										description={<p>It leaves the dataset; the runs already made keep it.</p>}
										confirmLabel="Delete case"
										destructive
										onConfirm={async () => {
											unwrap(await managementApi.evaluations.deleteEvaluationCase({ params: { workspaceId, caseId: entry.id } }));
											await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspaceId) });
										}}
									/>
								</div>
							</td>
						) : null}
					</tr>
				);
			})}
		</Table>
	);
}

/** Start a run: an assistant, then a version, its draft or what an environment serves. */
function StartRunForm({ workspaceId, datasetId }: { workspaceId: string; datasetId: string }) {
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const assistants = useQuery(assistantListQuery(workspaceId, false));
	const environments = useQuery(environmentsQuery(workspaceId));
	const [slug, setSlug] = useState("");
	const chosen = slug || assistants.data?.[0]?.slug || "";
	const versions = useQuery({ ...versionsQuery(workspaceId, chosen), enabled: chosen !== "" });
	const [target, setTarget] = useState("");
	const options = [
		...(versions.data ?? []).map((entry) => ({ value: `version:${entry.version}`, label: `Version ${entry.version}${entry.note ? ` (${entry.note})` : ""}` })),
		{ value: "draft", label: "The saved draft" },
		...(environments.data ?? []).map((environment) => ({ value: `environment:${environment.slug}`, label: `What ${environment.name} serves` })),
	];
	const chosenTarget = options.some((option) => option.value === target) ? target : (options[0]?.value ?? "draft");
	const start = useMutation({
		mutationFn: async () => {
			const [kind, value] = chosenTarget.split(":");
			const body =
				kind === "version"
					? { target: { kind: "version" as const, assistantSlug: chosen, version: Number(value) } }
					: kind === "environment"
						? { target: { kind: "environment" as const, assistantSlug: chosen, environment: value } }
						: { target: { kind: "draft" as const, assistantSlug: chosen } };
			return unwrap(await managementApi.evaluations.startEvaluationRun({ params: { workspaceId, datasetId }, body }));
		},
		onSuccess: async (run) => {
			await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspaceId) });
			await navigate({ to: "/workspaces/$workspaceId/evaluations/runs/$runId", params: { workspaceId, runId: run.id } });
		},
	});
	const submit = (event: FormEvent) => {
		event.preventDefault();
		start.mutate();
	};
	return (
		<Section title="Start a run" description="Every case is generated and scored in the background; the run's page shows its progress live.">
			{assistants.data && assistants.data.length === 0 ? (
				<p className="muted">No assistant to run against yet.</p>
			) : (
				<form className="inline-form" onSubmit={submit} aria-label="Start a run">
					<SelectField label="Assistant" value={chosen} onChange={(event) => setSlug(event.target.value)}>
						{(assistants.data ?? []).map((assistant) => (
							<option key={assistant.id} value={assistant.slug}>
								{assistant.name}
							</option>
						))}
					</SelectField>
					<SelectField label="Run against" value={chosenTarget} onChange={(event) => setTarget(event.target.value)}>
						{options.map((option) => (
							<option key={option.value} value={option.value}>
								{option.label}
							</option>
						))}
					</SelectField>
					<Button type="submit" pending={start.isPending} disabled={!chosen}>
						Start run
					</Button>
				</form>
			)}
			<FormErrorAlert error={start.error} fieldsShown={() => false} />
		</Section>
	);
}

/** Two runs of this dataset, side by side: the baseline (before) and the candidate (after). */
function CompareRunsForm({ workspaceId, runs }: { workspaceId: string; runs: { id: string; target: Parameters<typeof describeTarget>[0]["target"]; createdAt: string }[] }) {
	const navigate = useNavigate();
	const [baseline, setBaseline] = useState(runs[1].id);
	const [candidate, setCandidate] = useState(runs[0].id);
	const label = (run: (typeof runs)[number]) => `${describeTarget(run)} (${run.id.slice(-8)})`;
	return (
		<form
			className="inline-form"
			aria-label="Compare two runs"
			onSubmit={(event) => {
				event.preventDefault();
				void navigate({ to: "/workspaces/$workspaceId/evaluations/compare", params: { workspaceId }, search: { baseline, candidate } });
			}}
		>
			<SelectField label="Baseline run" value={baseline} onChange={(event) => setBaseline(event.target.value)}>
				{runs.map((run) => (
					<option key={run.id} value={run.id}>
						{label(run)}
					</option>
				))}
			</SelectField>
			<SelectField label="Candidate run" value={candidate} onChange={(event) => setCandidate(event.target.value)}>
				{runs.map((run) => (
					<option key={run.id} value={run.id}>
						{label(run)}
					</option>
				))}
			</SelectField>
			<Button type="submit" variant="secondary" disabled={baseline === candidate}>
				Compare runs
			</Button>
		</form>
	);
}
