import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { CheckboxField, TextAreaField, TextField } from "../../ui/field";
import { FormDialog } from "../../ui/form-dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { assistantListQuery, assistantsKey } from "./assistant-queries";
import { ServedBadges } from "./served-badges";

/** Assistants: what each environment serves, archived ones on request, and a new one. */
export function AssistantsPage() {
	const { workspace, role } = useWorkspace();
	const [showArchived, setShowArchived] = useState(false);
	const assistants = useQuery(assistantListQuery(workspace.id, showArchived));
	const canWrite = roleAtLeast(role, "member");
	return (
		<>
			<PageHeader
				title="Assistants"
				description="Each assistant is a configuration your programs call by slug; versions freeze it and each environment serves one version."
				actions={canWrite ? <CreateAssistantDialog workspaceId={workspace.id} /> : null}
			/>
			{canWrite ? null : <p className="muted">Your role ({role}) can read assistants; creating and changing them needs member or above.</p>}
			<CheckboxField label="Show archived assistants" checked={showArchived} onChange={(event) => setShowArchived(event.target.checked)} />
			{assistants.isPending ? <LoadingState label="Loading assistants" /> : null}
			<ErrorAlert error={assistants.error} />
			{assistants.data && assistants.data.length === 0 ? (
				<EmptyState title={showArchived ? "No assistants in this workspace." : "No assistants yet."}>
					<p>{canWrite ? "Create one: write its prompt, try it in the playground, create a version and publish it." : "A member of the organization creates them."}</p>
				</EmptyState>
			) : null}
			{assistants.data && assistants.data.length > 0 ? (
				<Table
					caption="Assistants"
					head={
						<>
							<th scope="col">Assistant</th>
							<th scope="col">Slug</th>
							<th scope="col">Serves</th>
							<th scope="col">Updated</th>
						</>
					}
				>
					{assistants.data.map((assistant) => (
						<tr key={assistant.id}>
							<td>
								<Link to="/workspaces/$workspaceId/assistants/$slug" params={{ workspaceId: workspace.id, slug: assistant.slug }}>
									{assistant.name}
								</Link>
								{assistant.archived ? (
									<>
										{" "}
										<Badge tone="warning">Archived</Badge>
									</>
								) : null}
								{assistant.description ? <div className="muted small">{assistant.description}</div> : null}
							</td>
							<td>
								<code>{assistant.slug}</code>
							</td>
							<td>{assistant.archived ? <span className="muted">Nothing while archived</span> : <ServedBadges deployments={assistant.deployments} />}</td>
							<td>{formatDateTime(assistant.updatedAt)}</td>
						</tr>
					))}
				</Table>
			) : null}
		</>
	);
}

/** Lowercase letters, digits and dashes from a name: "Support bot" -> "support-bot". */
function slugFrom(name: string): string {
	return name
		.toLowerCase()
		.normalize("NFKD")
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 63);
}

function CreateAssistantDialog({ workspaceId }: { workspaceId: string }) {
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState("");
	const [slug, setSlug] = useState("");
	const [slugEdited, setSlugEdited] = useState(false);
	const [description, setDescription] = useState("");
	const create = useMutation({
		mutationFn: async () =>
			unwrap(await managementApi.assistants.createAssistant({ params: { workspaceId }, body: { name, slug, ...(description.trim() ? { description: description.trim() } : {}) } })),
		onSuccess: async (created) => {
			await queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
			setOpen(false);
			await navigate({ to: "/workspaces/$workspaceId/assistants/$slug", params: { workspaceId, slug: created.slug } });
		},
	});
	return (
		<FormDialog
			open={open}
			setOpen={setOpen}
			mutation={create}
			title="New assistant"
			description="It starts with an empty draft; nothing is served until you publish a version."
			trigger={<Button>New assistant</Button>}
			fields={["name", "slug", "description"]}
			submitLabel="Create assistant"
		>
			{(issue) => (
				<>
					<TextField
						label="Name"
						value={name}
						onChange={(event) => {
							setName(event.target.value);
							if (!slugEdited) setSlug(slugFrom(event.target.value));
						}}
						error={issue("name")}
						required
						autoFocus
					/>
					<TextField
						label="Slug"
						description="How programs call it: POST /runtime/assistants/<slug>. Lowercase letters, digits and dashes; it never changes."
						value={slug}
						onChange={(event) => {
							setSlug(event.target.value);
							setSlugEdited(true);
						}}
						error={issue("slug")}
						required
						spellCheck={false}
					/>
					<TextAreaField label="Description" optional value={description} onChange={(event) => setDescription(event.target.value)} error={issue("description")} rows={3} />
				</>
			)}
		</FormDialog>
	);
}
