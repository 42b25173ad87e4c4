import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { FormDialog } from "../../ui/form-dialog";
import { TextAreaField, TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { assistantsKey, type Environment, environmentsKey, environmentsQuery } from "../assistants/assistant-queries";

/** Deployment environments: production always, and any others (staging, preview) assistants are published to. */
export function EnvironmentsPage() {
	const { workspace, role } = useWorkspace();
	const environments = useQuery(environmentsQuery(workspace.id));
	const canWrite = roleAtLeast(role, "member");
	return (
		<>
			<PageHeader
				title="Environments"
				description={
					<>
						Where assistants are published. Programs pick one with <code>environment</code> in the request (default production).
					</>
				}
				actions={canWrite ? <EnvironmentDialog workspaceId={workspace.id} /> : null}
			/>
			{canWrite ? null : <p className="muted">Your role ({role}) can read environments; changing them needs member or above.</p>}
			{environments.isPending ? <LoadingState label="Loading environments" /> : null}
			<ErrorAlert error={environments.error} />
			{environments.data ? (
				<Table
					caption="Environments"
					head={
						<>
							<th scope="col">Environment</th>
							<th scope="col">Slug</th>
							<th scope="col">Description</th>
							<th scope="col">Created</th>
							<th scope="col">
								<span className="visually-hidden">Actions</span>
							</th>
						</>
					}
				>
					{environments.data.map((environment) => (
						<tr key={environment.id}>
							<td>{environment.name}</td>
							<td>
								<code>{environment.slug}</code>
							</td>
							<td>{environment.description ?? <span className="muted">None</span>}</td>
							<td>{formatDateTime(environment.createdAt)}</td>
							<td>
								{canWrite ? (
									<div className="row">
										<EnvironmentDialog workspaceId={workspace.id} environment={environment} />
										<DeleteEnvironment workspaceId={workspace.id} environment={environment} />
									</div>
								) : null}
							</td>
						</tr>
					))}
				</Table>
			) : null}
		</>
	);
}

/** Create (no environment given) or rename one. */
function EnvironmentDialog({ workspaceId, environment }: { workspaceId: string; environment?: Environment }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [slug, setSlug] = useState("");
	const [name, setName] = useState(environment?.name ?? "");
	const [description, setDescription] = useState(environment?.description ?? "");
	const save = useMutation({
		mutationFn: async () => {
			if (environment) {
				return unwrap(
					await managementApi.environments.updateEnvironment({ params: { workspaceId, environment: environment.slug }, body: { name, description: description.trim() ? description.trim() : null } }),
				);
			}
			return unwrap(await managementApi.environments.createEnvironment({ params: { workspaceId }, body: { slug, name, ...(description.trim() ? { description: description.trim() } : {}) } }));
		},
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: environmentsKey(workspaceId) });
			setOpen(false);
		},
	});
	return (
		<FormDialog
			open={open}
			setOpen={setOpen}
			mutation={save}
			onOpen={() => {
				setSlug("");
				setName(environment?.name ?? "");
				setDescription(environment?.description ?? "");
			}}
			title={environment ? `Rename ${environment.name}` : "New environment"}
			description={environment ? "Its slug stays the same: programs and deployments keep using it." : "Assistants can then be published to it and called in it."}
			trigger={
				environment ? (
					<Button size="small" variant="secondary" aria-label={`Rename ${environment.slug}`}>
						Rename
					</Button>
				) : (
					<Button>New environment</Button>
				)
			}
			fields={["slug", "name", "description"]}
			submitLabel={environment ? "Save" : "Create environment"}
		>
			{(issue) => (
				<>
					{environment ? null : (
						<TextField
							label="Slug"
							description="Lowercase letters, digits and dashes, e.g. staging; it never changes."
							value={slug}
							onChange={(event) => setSlug(event.target.value)}
							error={issue("slug")}
							required
							spellCheck={false}
							autoFocus
						/>
					)}
					<TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={issue("name")} required autoFocus={Boolean(environment)} />
					<TextAreaField label="Description" optional value={description} onChange={(event) => setDescription(event.target.value)} error={issue("description")} rows={3} />
				</>
			)}
		</FormDialog>
	);
}

function DeleteEnvironment({ workspaceId, environment }: { workspaceId: string; environment: Environment }) {
	const queryClient = useQueryClient();
	const remove = useMutation({
		mutationFn: async () => unwrap(await managementApi.environments.deleteEnvironment({ params: { workspaceId, environment: environment.slug } })),
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: environmentsKey(workspaceId) });
			await queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
		},
	});
	if (environment.slug === "production") {
		return (
			<>
				<Button size="small" variant="danger" disabled aria-describedby="production-kept">
					Delete
				</Button>
				<span id="production-kept" className="muted small">
					Always kept: the runtime's default
				</span>
			</>
		);
	}
	return (
		<ConfirmDialog
			trigger={
				<Button size="small" variant="danger" aria-label={`Delete ${environment.slug}`}>
					Delete
				</Button>
			}
			title={`Delete ${environment.name}?`}
			description={
				<p>
					Its deployment history goes with it. It is refused while it serves any assistant that is not archived: calls to that assistant in <code>{environment.slug}</code> would start failing.
				</p>
			}
			confirmLabel="Delete environment"
			destructive
			onConfirm={() => remove.mutateAsync()}
		/>
	);
}
