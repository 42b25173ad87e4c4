import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { SelectField, TextAreaField, TextField } from "../../ui/field";
import { FormDialog } from "../../ui/form-dialog";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { knowledgeKey, type KnowledgeSource, sourcesQuery } from "./knowledge-queries";

/** The embedding models a source can be created with; fixed for the source's life. */
const EMBEDDING_CHOICES = [
	{ value: "", label: "Workspace default (OpenAI or Mistral when configured, else built-in)" },
	{ value: "builtin/builtin-hash-v1", label: "Built-in (builtin-hash-v1, no provider needed)" },
	{ value: "openai/text-embedding-3-small", label: "OpenAI text-embedding-3-small" },
	{ value: "openai/text-embedding-3-large", label: "OpenAI text-embedding-3-large" },
	{ value: "mistral/mistral-embed", label: "Mistral mistral-embed" },
] as const;

export function documentCountText(count: number): string {
	return count === 1 ? "1 document" : `${count} documents`;
}

/** Knowledge sources: what each holds and which embedding model it uses; create and delete. */
export function SourcesPage() {
	const { workspace, role } = useWorkspace();
	const sources = useQuery(sourcesQuery(workspace.id));
	const canWrite = roleAtLeast(role, "member");
	return (
		<>
			<PageHeader
				title="Knowledge"
				description="Sources are collections of documents searched together; assistants that attach a source answer from its chunks."
				actions={canWrite ? <CreateSourceDialog workspaceId={workspace.id} /> : null}
			/>
			{canWrite ? null : <p className="muted">Your role ({role}) can read knowledge; adding and removing it needs member or above.</p>}
			{sources.isPending ? <LoadingState label="Loading knowledge sources" /> : null}
			<ErrorAlert error={sources.error} />
			{sources.data && sources.data.length === 0 ? (
				<EmptyState title="No knowledge sources yet.">
					<p>{canWrite ? "Create one, then drop documents onto it." : "A member of the organization creates them."}</p>
				</EmptyState>
			) : null}
			{sources.data && sources.data.length > 0 ? (
				<Table
					caption="Knowledge sources"
					head={
						<>
							<th scope="col">Source</th>
							<th scope="col">Embedding model</th>
							<th scope="col">Documents</th>
							<th scope="col">Created</th>
							{canWrite ? <th scope="col">Actions</th> : null}
						</>
					}
				>
					{sources.data.map((source) => (
						<tr key={source.id}>
							<td>
								<Link to="/workspaces/$workspaceId/knowledge/$sourceId" params={{ workspaceId: workspace.id, sourceId: source.id }}>
									{source.name}
								</Link>
								{source.description ? <div className="muted small">{source.description}</div> : null}
							</td>
							<td>
								<code>
									{source.embeddingModel.provider}/{source.embeddingModel.model}
								</code>
							</td>
							<td className="number">{source.documentCount}</td>
							<td>{formatDateTime(source.createdAt)}</td>
							{canWrite ? (
								<td>
									<DeleteSourceButton workspaceId={workspace.id} source={source} />
								</td>
							) : null}
						</tr>
					))}
				</Table>
			) : null}
		</>
	);
}

export function DeleteSourceButton({ workspaceId, source, onDeleted }: { workspaceId: string; source: KnowledgeSource; onDeleted?: () => Promise<void> }) {
	const queryClient = useQueryClient();
	return (
		<ConfirmDialog
			trigger={
				<Button variant="danger" size="small" aria-label={`Delete ${source.name}`}>
					Delete
				</Button>
			}
			title={`Delete ${source.name}?`}
			description={
				<p>
					Its {documentCountText(source.documentCount)} go with it, with their chunks and stored files; assistants that attach it stop retrieving from it. This cannot be undone.
				</p>
			}
			confirmLabel={`Delete ${source.name} and ${documentCountText(source.documentCount)}`}
			destructive
			onConfirm={async () => {
				unwrap(await managementApi.knowledgeSources.deleteKnowledgeSource({ params: { workspaceId, sourceId: source.id } }));
				await onDeleted?.();
				await queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) });
			}}
		/>
	);
}

function CreateSourceDialog({ workspaceId }: { workspaceId: string }) {
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState("");
	const [description, setDescription] = useState("");
	const [embedding, setEmbedding] = useState<string>("");
	const create = useMutation({
		mutationFn: async () => {
			const [provider, model] = embedding ? embedding.split("/") : [];
			const body = {
				name,
				...(description.trim() ? { description: description.trim() } : {}),
				...(provider && model ? { embeddingModel: { provider: provider as "builtin" | "openai" | "mistral", model } } : {}),
			};
			return unwrap(await managementApi.knowledgeSources.createKnowledgeSource({ params: { workspaceId }, body }));
		},
		onSuccess: async (created) => {
			await queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) });
			setOpen(false);
			await navigate({ to: "/workspaces/$workspaceId/knowledge/$sourceId", params: { workspaceId, sourceId: created.id } });
		},
	});
	return (
		<FormDialog
			open={open}
			setOpen={setOpen}
			mutation={create}
			title="New knowledge source"
			description="The embedding model is fixed for the source's life, so its vectors never mix."
			trigger={<Button>New source</Button>}
			fields={["name", "description"]}
			submitLabel="Create source"
		>
			{(issue) => (
				<>
					<TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} error={issue("name")} required autoFocus />
					<TextAreaField label="Description" optional value={description} onChange={(event) => setDescription(event.target.value)} error={issue("description")} rows={2} />
					<SelectField label="Embedding model" value={embedding} onChange={(event) => setEmbedding(event.target.value)} error={issue("embeddingModel")}>
						{EMBEDDING_CHOICES.map((choice) => (
							<option key={choice.value} value={choice.value}>
								{choice.label}
							</option>
						))}
					</SelectField>
				</>
			)}
		</FormDialog>
	);
}
