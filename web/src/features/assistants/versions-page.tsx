import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { useSession } from "../session/session-query";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { SelectField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { EmptyState, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { assistantQuery, environmentsQuery, versionsQuery } from "./assistant-queries";
import { useAssistantSlug } from "./assistant-layout";
import { PublishDialog } from "./publish-dialog";

/** Versions with their notes, what serves each, and the way to compare two or publish one. */
export function VersionsPage() {
	const { workspace, role } = useWorkspace();
	const slug = useAssistantSlug();
	const session = useSession();
	const versions = useQuery(versionsQuery(workspace.id, slug));
	const assistant = useQuery(assistantQuery(workspace.id, slug));
	const environments = useQuery(environmentsQuery(workspace.id));
	const canWrite = roleAtLeast(role, "member");
	if (versions.isPending) return <LoadingState label="Loading versions" />;
	if (!versions.data) return <ErrorAlert error={versions.error} />;
	if (versions.data.length === 0) {
		return (
			<EmptyState title="No versions yet.">
				<p>
					A version freezes the saved draft: create one from the{" "}
					<Link to="/workspaces/$workspaceId/assistants/$slug" params={{ workspaceId: workspace.id, slug }}>
						editor
					</Link>
					.
				</p>
			</EmptyState>
		);
	}
	const servedBy = (version: number) => assistant.data?.deployments.filter((deployment) => deployment.version === version) ?? [];
	return (
		<>
			<CompareForm versions={versions.data.map((entry) => entry.version)} />
			<Section title="Versions" description="Newest first. A version never changes once created.">
				<Table
					caption="Versions"
					head={
						<>
							<th scope="col">Version</th>
							<th scope="col">Note</th>
							<th scope="col">Created</th>
							<th scope="col">Served in</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{versions.data.map((entry) => (
						<tr key={entry.id}>
							<td>
								<strong>Version {entry.version}</strong>
							</td>
							<td>{entry.note ?? <span className="muted">No note</span>}</td>
							<td>
								{formatDateTime(entry.createdAt)}
								<div className="muted small">{entry.createdByUserId === null ? "by the operator" : entry.createdByUserId === session?.user.id ? "by you" : `by ${entry.createdByUserId}`}</div>
							</td>
							<td>
								{servedBy(entry.version).length === 0 ? (
									<span className="muted">Nowhere</span>
								) : (
									servedBy(entry.version).map((deployment) => (
										<Badge key={deployment.environment} tone="success">
											{deployment.environment}
										</Badge>
									))
								)}
							</td>
							<td>
								<div className="row">
									{entry.version > 1 ? (
										<Link
											to="/workspaces/$workspaceId/assistants/$slug/compare"
											params={{ workspaceId: workspace.id, slug }}
											search={{ from: String(entry.version - 1), to: String(entry.version) }}
										>
											Changes from version {entry.version - 1}
										</Link>
									) : null}
									{canWrite && assistant.data && environments.data ? (
										<PublishDialog
											workspaceId={workspace.id}
											details={assistant.data}
											versions={versions.data}
											environments={environments.data}
											initialVersion={entry.version}
											trigger={
												<Button size="small" variant="secondary" aria-label={`Publish version ${entry.version}`}>
													Publish
												</Button>
											}
										/>
									) : null}
								</div>
							</td>
						</tr>
					))}
				</Table>
			</Section>
		</>
	);
}

function CompareForm({ versions }: { versions: number[] }) {
	const { workspace } = useWorkspace();
	const slug = useAssistantSlug();
	const navigate = useNavigate();
	const [from, setFrom] = useState(String(versions[1] ?? versions[0] ?? ""));
	const [to, setTo] = useState(String(versions[0] ?? ""));
	const submit = (event: FormEvent) => {
		event.preventDefault();
		void navigate({ to: "/workspaces/$workspaceId/assistants/$slug/compare", params: { workspaceId: workspace.id, slug }, search: { from, to } });
	};
	const options = (
		<>
			{versions.map((version) => (
				<option key={version} value={String(version)}>
					Version {version}
				</option>
			))}
			<option value="draft">The saved draft</option>
		</>
	);
	return (
		<Section title="Compare two versions">
			<form className="inline-form" onSubmit={submit} aria-label="Compare two versions">
				<SelectField label="From" value={from} onChange={(event) => setFrom(event.target.value)}>
					{options}
				</SelectField>
				<SelectField label="To" value={to} onChange={(event) => setTo(event.target.value)}>
					{options}
				</SelectField>
				<Button type="submit" variant="secondary">
					Compare
				</Button>
			</form>
		</Section>
	);
}
