import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { useSession } from "../session/session-query";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { type AssistantDetails, assistantQuery, assistantsKey, type DeploymentHistoryEntry, deploymentsQuery, environmentsQuery, versionsQuery } from "./assistant-queries";
import { useAssistantSlug } from "./assistant-layout";
import { PublishDialog } from "./publish-dialog";

/** What each environment serves, publishing and rolling back there, and every change so far. */
export function DeploymentsPage() {
	const { workspace, role } = useWorkspace();
	const slug = useAssistantSlug();
	const session = useSession();
	const assistant = useQuery(assistantQuery(workspace.id, slug));
	const versions = useQuery(versionsQuery(workspace.id, slug));
	const environments = useQuery(environmentsQuery(workspace.id));
	const history = useQuery(deploymentsQuery(workspace.id, slug));
	const canWrite = roleAtLeast(role, "member");
	if (assistant.isPending || versions.isPending || environments.isPending || history.isPending) return <LoadingState label="Loading deployments" />;
	const error = assistant.error ?? versions.error ?? environments.error ?? history.error;
	if (error || !assistant.data || !versions.data || !environments.data || !history.data) return <ErrorAlert error={error} />;
	const details = assistant.data;
	const latestIn = (environment: string) => history.data.find((entry) => entry.environment === environment);
	const who = (userId: string | null) => (userId === null ? "the operator" : userId === session?.user.id ? "you" : userId);
	return (
		<>
			<Section
				title="Environments"
				description={
					<>
						Programs call <code>POST /runtime/assistants/{slug}</code> with an API key; <code>environment</code> in the body picks where (default production). Manage environments on the{" "}
						<Link to="/workspaces/$workspaceId/environments" params={{ workspaceId: workspace.id }}>
							Environments
						</Link>{" "}
						page.
					</>
				}
			>
				{versions.data.length === 0 ? (
					<EmptyState title="No version to publish yet.">
						<p>
							Create a version from the{" "}
							<Link to="/workspaces/$workspaceId/assistants/$slug" params={{ workspaceId: workspace.id, slug }}>
								editor
							</Link>{" "}
							first.
						</p>
					</EmptyState>
				) : null}
				<Table
					caption="What each environment serves"
					head={
						<>
							<th scope="col">Environment</th>
							<th scope="col">Serves</th>
							<th scope="col">Last change</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{environments.data.map((environment) => {
						const serving = details.deployments.find((deployment) => deployment.environment === environment.slug);
						const latest = latestIn(environment.slug);
						return (
							<tr key={environment.id}>
								<th scope="row">
									{environment.name} <code className="muted small">{environment.slug}</code>
								</th>
								<td>{details.archived ? <Badge tone="warning">Nothing (archived)</Badge> : serving ? <Badge tone="success">Version {serving.version}</Badge> : <span className="muted">Nothing</span>}</td>
								<td>{latest ? `${latest.action === "publish" ? "Published" : "Rolled back"} ${formatDateTime(latest.at)} by ${who(latest.actorUserId)}` : <span className="muted">Never published</span>}</td>
								<td>
									{canWrite ? (
										<div className="row">
											{versions.data.length > 0 ? (
												<PublishDialog
													workspaceId={workspace.id}
													details={details}
													versions={versions.data}
													environments={environments.data}
													initialEnvironment={environment.slug}
													trigger={
														<Button size="small" aria-label={`Publish to ${environment.slug}`}>
															Publish
														</Button>
													}
												/>
											) : null}
											<RollbackButton workspaceId={workspace.id} details={details} environment={environment.slug} latest={latest} serving={serving?.version} />
										</div>
									) : null}
								</td>
							</tr>
						);
					})}
				</Table>
			</Section>
			<Section title="History" description="Every publish and rollback, newest first.">
				{history.data.length === 0 ? (
					<p className="muted">Never published.</p>
				) : (
					<Table
						caption="Deployment history"
						head={
							<>
								<th scope="col">When</th>
								<th scope="col">Environment</th>
								<th scope="col">Change</th>
								<th scope="col">By</th>
							</>
						}
					>
						{history.data.map((entry, index) => (
							<tr key={`${entry.at}-${index}`}>
								<td>{formatDateTime(entry.at)}</td>
								<td>{entry.environment}</td>
								<td>
									{entry.action === "publish" ? "Published" : "Rolled back to"} version {entry.version}
									{entry.previousVersion !== null ? <span className="muted"> (was version {entry.previousVersion})</span> : <span className="muted"> (first)</span>}
								</td>
								<td>{who(entry.actorUserId)}</td>
							</tr>
						))}
					</Table>
				)}
			</Section>
		</>
	);
}

/** Rolling back serves what the latest change in that environment replaced; the button says which, or why there is nothing. */
function RollbackButton({
	workspaceId,
	details,
	environment,
	latest,
	serving,
}: {
	workspaceId: string;
	details: AssistantDetails;
	environment: string;
	latest?: DeploymentHistoryEntry;
	serving?: number;
}) {
	const queryClient = useQueryClient();
	const rollback = useMutation({
		mutationFn: async () => unwrap(await managementApi.assistants.rollbackAssistantDeployment({ params: { workspaceId, slug: details.slug }, body: { environment } })),
		onSuccess: () => queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) }),
	});
	const target = latest?.previousVersion ?? null;
	if (serving === undefined || target === null) {
		const reason = `rollback-${environment}`;
		return (
			<>
				<Button size="small" variant="secondary" disabled aria-label={`Roll back ${environment}`} aria-describedby={reason}>
					Roll back
				</Button>
				<span id={reason} className="muted small">
					{serving === undefined ? "Nothing served here" : "No earlier version served here"}
				</span>
			</>
		);
	}
	return (
		<ConfirmDialog
			trigger={
				<Button size="small" variant="danger" aria-label={`Roll back ${environment}`}>
					Roll back
				</Button>
			}
			title={`Roll back ${environment} to version ${target}?`}
			description={
				<p>
					{environment} serves version {serving} now. Rolling back serves <strong>version {target}</strong> of <code>{details.slug}</code> again (the version {serving} replaced), from the
					very next call on every server.
				</p>
			}
			confirmLabel={`Roll back to version ${target}`}
			destructive
			onConfirm={() => rollback.mutateAsync()}
		/>
	);
}
