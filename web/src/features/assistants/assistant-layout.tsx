import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { FormDialog } from "../../ui/form-dialog";
import { TextAreaField, TextField } from "../../ui/field";
import { PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { type AssistantDetails, assistantQuery, assistantsKey } from "./assistant-queries";
import { ServedBadges } from "./served-badges";

/** The slug of the assistant the page is about (the route guarantees it). */
export function useAssistantSlug(): string {
	return (useParams({ strict: false }) as { slug: string }).slug;
}

/** One assistant: its name and what it serves, its actions, and its pages (editor, versions, deployments). */
export function AssistantLayout() {
	const { workspace, role } = useWorkspace();
	const slug = useAssistantSlug();
	const assistant = useQuery(assistantQuery(workspace.id, slug));
	const canWrite = roleAtLeast(role, "member");
	if (assistant.isPending) return <LoadingState label="Loading the assistant" />;
	if (!assistant.data) {
		return (
			<>
				<PageHeader title="Assistant not found" />
				<ErrorAlert error={assistant.error} />
				<p>
					<Link to="/workspaces/$workspaceId/assistants" params={{ workspaceId: workspace.id }}>
						Back to the assistants
					</Link>
				</p>
			</>
		);
	}
	const details = assistant.data;
	const tab = { workspaceId: workspace.id, slug };
	return (
		<>
			<p className="small">
				<Link to="/workspaces/$workspaceId/assistants" params={{ workspaceId: workspace.id }}>
					Assistants
				</Link>{" "}
				/ <code>{slug}</code>
			</p>
			<PageHeader
				title={details.name}
				description={details.description ?? undefined}
				actions={canWrite ? <AssistantActions workspaceId={workspace.id} details={details} /> : null}
			/>
			<div className="row spaced-below">
				<span className="muted">Serves:</span>
				{details.archived ? <Badge tone="warning">Nothing: archived</Badge> : <ServedBadges deployments={details.deployments} />}
			</div>
			<nav aria-label="Assistant pages">
				<ul className="subnav">
					<li>
						<Link to="/workspaces/$workspaceId/assistants/$slug" params={tab} activeOptions={{ exact: true }} activeProps={{ "aria-current": "page" }}>
							Editor and playground
						</Link>
					</li>
					<li>
						<Link to="/workspaces/$workspaceId/assistants/$slug/versions" params={tab} activeProps={{ "aria-current": "page" }}>
							Versions
						</Link>
					</li>
					<li>
						<Link to="/workspaces/$workspaceId/assistants/$slug/compare" params={tab} search={{}} activeProps={{ "aria-current": "page" }}>
							Compare
						</Link>
					</li>
					<li>
						<Link to="/workspaces/$workspaceId/assistants/$slug/deployments" params={tab} activeProps={{ "aria-current": "page" }}>
							Deployments
						</Link>
					</li>
				</ul>
			</nav>
			<Outlet />
		</>
	);
}

function AssistantActions({ workspaceId, details }: { workspaceId: string; details: AssistantDetails }) {
	const queryClient = useQueryClient();
	const refresh = () => queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
	const params = { workspaceId, slug: details.slug };
	const archive = useMutation({ mutationFn: async () => unwrap(await managementApi.assistants.archiveAssistant({ params })), onSuccess: refresh });
	const restore = useMutation({ mutationFn: async () => unwrap(await managementApi.assistants.restoreAssistant({ params })), onSuccess: refresh });
	const served = details.deployments.map((deployment) => `${deployment.environment} (version ${deployment.version})`).join(", ");
	return (
		<>
			<RenameDialog workspaceId={workspaceId} details={details} />
			{details.archived ? (
				<ConfirmDialog
					trigger={<Button variant="secondary">Restore</Button>}
					title={`Restore ${details.name}?`}
					description={
						served ? <p>It is served again at once where it was deployed: {served}.</p> : <p>It was not deployed anywhere; restoring makes it editable and publishable again.</p>
					}
					confirmLabel="Restore"
					onConfirm={() => restore.mutateAsync()}
				/>
			) : (
				<ConfirmDialog
					trigger={<Button variant="danger">Archive</Button>}
					title={`Archive ${details.name}?`}
					description={
						<>
							<p>
								{served ? `It stops being served in ${served}: ` : "It is not served anywhere yet. Once archived, "}
								calls to <code>/runtime/assistants/{details.slug}</code> answer DEPLOYMENT_NOT_FOUND.
							</p>
							<p>Its versions and deployments are kept; restoring serves exactly what was deployed before.</p>
						</>
					}
					confirmLabel="Archive"
					destructive
					onConfirm={() => archive.mutateAsync()}
				/>
			)}
		</>
	);
}

function RenameDialog({ workspaceId, details }: { workspaceId: string; details: AssistantDetails }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState(details.name);
	const [description, setDescription] = useState(details.description ?? "");
	const rename = useMutation({
		mutationFn: async () =>
			unwrap(await managementApi.assistants.updateAssistant({ params: { workspaceId, slug: details.slug }, body: { name, description: description.trim() ? description.trim() : null } })),
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
			setOpen(false);
		},
	});
	return (
		<FormDialog
			open={open}
			setOpen={setOpen}
			mutation={rename}
			onOpen={() => {
				setName(details.name);
				setDescription(details.description ?? "");
			}}
			title={`Rename ${details.name}`}
			description="The slug stays the same: programs keep calling it as before."
			trigger={<Button variant="secondary">Rename</Button>}
			fields={["name", "description"]}
			submitLabel="Save"
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
