import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { type DragEvent, type FormEvent, Fragment, useRef, useState } from "react";
import { managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { ConfirmDialog } from "../../ui/dialog";
import { TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { documentsKey, documentsQuery, isInFlight, type KnowledgeDocument, knowledgeKey, pollDelay, type SearchResult, sourceQuery } from "./knowledge-queries";
import { DeleteSourceButton } from "./sources-page";
import { ACCEPTED_EXTENSIONS, checkFile, formatBytes } from "./upload-checks";
import { uploadFile } from "./upload-files";

const STATUS_TONE = { PENDING: "neutral", PROCESSING: "info", READY: "success", FAILED: "danger" } as const;
const STATUS_WORDS = { PENDING: "Pending", PROCESSING: "Processing", READY: "Ready", FAILED: "Failed" } as const;

/** One source: its documents with their status kept current, uploads, and the search tester. */
export function SourcePage() {
	const { workspace, role } = useWorkspace();
	const { sourceId } = useParams({ strict: false }) as { sourceId: string };
	const navigate = useNavigate();
	const canWrite = roleAtLeast(role, "member");
	const source = useQuery(sourceQuery(workspace.id, sourceId));
	const [uploadsInFlight, setUploadsInFlight] = useState(0);
	const documents = useLiveDocuments(workspace.id, sourceId, uploadsInFlight > 0);
	if (source.isPending) return <LoadingState label="Loading the source" />;
	if (source.error) return <ErrorAlert error={source.error} />;
	return (
		<>
			<PageHeader
				title={source.data.name}
				description={
					<>
						{source.data.description ? `${source.data.description} · ` : ""}Embedding model{" "}
						<code>
							{source.data.embeddingModel.provider}/{source.data.embeddingModel.model}
						</code>
					</>
				}
				actions={
					canWrite ? (
						<DeleteSourceButton
							workspaceId={workspace.id}
							source={{ ...source.data, documentCount: documents.data?.length ?? source.data.documentCount }}
							onDeleted={() => navigate({ to: "/workspaces/$workspaceId/knowledge", params: { workspaceId: workspace.id } })}
						/>
					) : null
				}
			/>
			{canWrite ? <UploadArea workspaceId={workspace.id} sourceId={sourceId} onInFlight={(change) => setUploadsInFlight((count) => count + change)} /> : null}
			<Section title="Documents" description="Status follows ingestion as it happens; the page keeps it current on its own.">
				{documents.isPending ? <LoadingState label="Loading documents" /> : null}
				<ErrorAlert error={documents.error} />
				{documents.data && documents.data.length === 0 ? <EmptyState title="No documents yet.">{canWrite ? <p>Drop files above to add some.</p> : null}</EmptyState> : null}
				{documents.data && documents.data.length > 0 ? (
					<DocumentsTable workspaceId={workspace.id} sourceId={sourceId} documents={documents.data} canWrite={canWrite} />
				) : null}
			</Section>
			<SearchTester key={sourceId} workspaceId={workspace.id} sourceId={sourceId} />
		</>
	);
}

/**
 * The documents, polled while any of them (or an upload) is in flight: every 500 ms at first, slower
 * while nothing changes (at most 3 s apart), and not at all once every document has settled.
 */
function useLiveDocuments(workspaceId: string, sourceId: string, uploading: boolean) {
	const unchanged = useRef({ signature: "", polls: 0 });
	return useQuery({
		...documentsQuery(workspaceId, sourceId),
		refetchInterval: (query) => {
			const data = query.state.data;
			if (!uploading && !data?.some(isInFlight)) return false;
			const signature = (data ?? []).map((document) => `${document.id}:${document.status}`).join(",");
			if (signature === unchanged.current.signature) unchanged.current.polls += 1;
			else unchanged.current = { signature, polls: 0 };
			return pollDelay(unchanged.current.polls);
		},
		refetchIntervalInBackground: false,
	});
}

function DocumentsTable({ workspaceId, sourceId, documents, canWrite }: { workspaceId: string; sourceId: string; documents: KnowledgeDocument[]; canWrite: boolean }) {
	return (
		<Table
			caption="Documents"
			head={
				<>
					<th scope="col">Document</th>
					<th scope="col">Status</th>
					<th scope="col">Size</th>
					<th scope="col">Chunks</th>
					<th scope="col">Added</th>
					<th scope="col">Actions</th>
				</>
			}
		>
			{documents.map((document) => (
				<tr key={document.id}>
					<td>{document.filename}</td>
					<td>
						<span role="status" aria-label={`${document.filename}: ${STATUS_WORDS[document.status]}`}>
							<Badge tone={STATUS_TONE[document.status]}>{STATUS_WORDS[document.status]}</Badge>
						</span>
						{document.status === "FAILED" && document.failureReason ? <div className="small field-error">{document.failureReason}</div> : null}
					</td>
					<td className="number">{formatBytes(document.byteSize)}</td>
					<td className="number">{document.chunkCount}</td>
					<td>{formatDateTime(document.createdAt)}</td>
					<td>
						<DocumentActions workspaceId={workspaceId} sourceId={sourceId} document={document} canWrite={canWrite} />
					</td>
				</tr>
			))}
		</Table>
	);
}

function DocumentActions({ workspaceId, sourceId, document, canWrite }: { workspaceId: string; sourceId: string; document: KnowledgeDocument; canWrite: boolean }) {
	const queryClient = useQueryClient();
	const refresh = () => queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) });
	const params = { workspaceId, sourceId, documentId: document.id };
	const retry = useMutation({ mutationFn: async () => unwrap(await managementApi.knowledgeSources.retryKnowledgeDocument({ params })), onSuccess: refresh });
	const download = useMutation({
		mutationFn: async () => {
			const file = unwrap(await managementApi.knowledgeSources.downloadKnowledgeDocument({ params }));
			const bytes = file.encoding === "text" ? new TextEncoder().encode(file.content) : Uint8Array.from(atob(file.content), (character) => character.charCodeAt(0));
			const url = URL.createObjectURL(new Blob([bytes], { type: file.contentType }));
			const link = window.document.createElement("a");
			link.href = url;
			link.download = file.filename;
			link.click();
			setTimeout(() => URL.revokeObjectURL(url), 1000);
		},
	});
	return (
		<div className="row">
			<Button variant="secondary" size="small" onClick={() => download.mutate()} pending={download.isPending} aria-label={`Download ${document.filename}`}>
				Download
			</Button>
			{canWrite && document.status === "FAILED" ? (
				<Button variant="secondary" size="small" onClick={() => retry.mutate()} pending={retry.isPending} aria-label={`Retry ${document.filename}`}>
					Retry
				</Button>
			) : null}
			{canWrite ? (
				<ConfirmDialog
					trigger={
						<Button variant="danger" size="small" aria-label={`Delete ${document.filename}`}>
							Delete
						</Button>
					}
					title={`Delete ${document.filename}?`}
					description={<p>Its {document.chunkCount} chunks and the stored file go with it; searches stop returning it at once.</p>}
					confirmLabel="Delete document"
					destructive
					onConfirm={async () => {
						unwrap(await managementApi.knowledgeSources.deleteKnowledgeDocument({ params }));
						await refresh();
					}}
				/>
			) : null}
			<ErrorAlert error={retry.error ?? download.error} />
		</div>
	);
}

interface UploadEntry {
	key: string;
	name: string;
	size: number;
	state: "refused" | "uploading" | "done" | "failed";
	progress: number;
	message?: string;
}

/** Drop zone and file picker: each file checked before anything is sent, then uploaded with its own progress bar. */
function UploadArea({ workspaceId, sourceId, onInFlight }: { workspaceId: string; sourceId: string; onInFlight: (change: number) => void }) {
	const queryClient = useQueryClient();
	const [entries, setEntries] = useState<UploadEntry[]>([]);
	const [dragging, setDragging] = useState(false);
	const input = useRef<HTMLInputElement>(null);
	const counter = useRef(0);
	const update = (key: string, patch: Partial<UploadEntry>) => setEntries((current) => current.map((entry) => (entry.key === key ? { ...entry, ...patch } : entry)));

	const start = (files: File[]) => {
		for (const file of files) {
			counter.current += 1;
			const key = `${counter.current}-${file.name}`;
			const checked = checkFile(file);
			if ("refusal" in checked) {
				setEntries((current) => [...current, { key, name: file.name, size: file.size, state: "refused", progress: 0, message: checked.refusal }]);
				continue;
			}
			setEntries((current) => [...current, { key, name: file.name, size: file.size, state: "uploading", progress: 0 }]);
			onInFlight(1);
			uploadFile(workspaceId, sourceId, file, checked.contentType, (progress) => update(key, { progress }))
				.then(() => update(key, { state: "done", progress: 1 }))
				.catch((error: unknown) => update(key, { state: "failed", message: error instanceof Error ? error.message : String(error) }))
				.finally(() => {
					onInFlight(-1);
					void queryClient.invalidateQueries({ queryKey: documentsKey(workspaceId, sourceId) });
					void queryClient.invalidateQueries({ queryKey: knowledgeKey(workspaceId) });
				});
		}
		void queryClient.invalidateQueries({ queryKey: documentsKey(workspaceId, sourceId) });
	};

	const drop = (event: DragEvent) => {
		event.preventDefault();
		setDragging(false);
		start(Array.from(event.dataTransfer.files));
	};

	return (
		<Section title="Upload" description={`Accepted: ${ACCEPTED_EXTENSIONS.join(", ")}; at most 25 MB per file.`}>
			<div
				className={`dropzone${dragging ? " dropzone-active" : ""}`}
				data-testid="dropzone"
				onDragOver={(event) => {
					event.preventDefault();
					setDragging(true);
				}}
				onDragLeave={() => setDragging(false)}
				onDrop={drop}
			>
				<p>Drop files here, or</p>
				<Button variant="secondary" onClick={() => input.current?.click()}>
					Choose files
				</Button>
				<input
					ref={input}
					type="file"
					multiple
					accept={ACCEPTED_EXTENSIONS.join(",")}
					className="visually-hidden"
					aria-label="Files to upload"
					tabIndex={-1}
					onChange={(event) => {
						start(Array.from(event.target.files ?? []));
						event.target.value = "";
					}}
				/>
			</div>
			{entries.length > 0 ? (
				<ul className="upload-list" aria-label="Uploads">
					{entries.map((entry) => (
						<li key={entry.key} className={`upload upload-${entry.state}`}>
							<div className="upload-head">
								<span>
									{entry.name} <span className="muted small">({formatBytes(entry.size)})</span>
								</span>
								<span className="small">
									{entry.state === "refused" ? "Not uploaded" : entry.state === "failed" ? "Upload failed" : entry.state === "done" ? "Uploaded" : `${Math.round(entry.progress * 100)}%`}
								</span>
							</div>
							{entry.state === "uploading" || entry.state === "done" ? (
								<progress max={1} value={entry.progress} aria-label={`Uploading ${entry.name}`} />
							) : null}
							{entry.message ? (
								<p className="small field-error" role="alert">
									{entry.name}: {entry.message}
								</p>
							) : null}
						</li>
					))}
				</ul>
			) : null}
		</Section>
	);
}

/** The query's words (three letters or more), for highlighting. */
function queryWords(query: string): string[] {
	return Array.from(new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []));
}

/** The text with each of the query's words marked; the marks are words, so they need no colour to be read. */
export function Highlighted({ text, words }: { text: string; words: string[] }) {
	if (words.length === 0) return <>{text}</>;
	const pattern = new RegExp(`(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "giu");
	return (
		<>
			{text.split(pattern).map((part, index) =>
				// split with a capture group puts the matches at odd indexes.
				index % 2 === 1 ? <mark key={index}>{part}</mark> : <Fragment key={index}>{part}</Fragment>,
			)}
		</>
	);
}

function locationText(result: SearchResult): string {
	const parts: string[] = [];
	if (result.location.page) parts.push(`page ${result.location.page}`);
	if (result.location.headingPath?.length) parts.push(result.location.headingPath.join(" › "));
	if (result.location.rowRange) parts.push(`rows ${result.location.rowRange.from}–${result.location.rowRange.to}`);
	return parts.join(", ");
}

function SearchTester({ workspaceId, sourceId }: { workspaceId: string; sourceId: string }) {
	const [query, setQuery] = useState("");
	const [searched, setSearched] = useState("");
	const search = useMutation({
		mutationFn: async (text: string) => unwrap(await managementApi.knowledgeSources.searchKnowledgeSource({ params: { workspaceId, sourceId }, query: { query: text, topK: 5 } })).data,
	});
	const submit = (event: FormEvent) => {
		event.preventDefault();
		setSearched(query);
		search.mutate(query);
	};
	const words = queryWords(searched);
	return (
		<Section title="Search tester" description="What an assistant attached to this source would retrieve for a question: the best chunks of READY documents.">
			<form className="inline-form" onSubmit={submit} aria-label="Search this source">
				<TextField label="Question or sentence" value={query} onChange={(event) => setQuery(event.target.value)} required />
				<Button type="submit" pending={search.isPending} disabled={!query.trim()}>
					Search
				</Button>
			</form>
			<ErrorAlert error={search.error} />
			{search.data && search.data.length === 0 ? <Alert tone="info">Nothing found for “{searched}”.</Alert> : null}
			{search.data && search.data.length > 0 ? (
				<ol className="search-results" aria-label="Search results">
					{search.data.map((result) => (
						<li key={result.chunkId} className="card">
							<p className="small">
								<strong>{result.filename}</strong>
								{locationText(result) ? ` · ${locationText(result)}` : ""} · score {result.score.toFixed(3)}
							</p>
							<p className="search-text">
								<Highlighted text={result.text} words={words} />
							</p>
						</li>
					))}
				</ol>
			) : null}
		</Section>
	);
}
