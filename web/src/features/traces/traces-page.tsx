import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { Button } from "../../ui/button";
import { SelectField, TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { EmptyState, PageHeader } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { assistantListQuery, environmentsQuery, versionsQuery } from "../assistants/assistant-queries";
import { CALLER_LABELS, formatCost, formatLatency, KIND_LABELS, type TraceSearch, tracesQuery } from "./trace-queries";

/** Generations newest first, a page at a time (keyset: the next page starts after the last one seen), filtered through the URL. */
export function TracesPage() {
	const { workspace } = useWorkspace();
	const search = useSearch({ strict: false }) as TraceSearch;
	const navigate = useNavigate();
	const traces = useQuery(tracesQuery(workspace.id, search));
	const assistants = useQuery(assistantListQuery(workspace.id, true));
	const environments = useQuery(environmentsQuery(workspace.id));
	const assistantName = (id: string | null) => (id ? (assistants.data?.find((assistant) => assistant.id === id)?.name ?? id) : null);
	const environmentName = (id: string | null) => (id ? (environments.data?.find((environment) => environment.id === id)?.slug ?? id) : null);
	// The pages seen before this one, so "Newer" goes back without the server keeping state.
	const [earlier, setEarlier] = useState<(string | undefined)[]>([]);
	const go = (next: TraceSearch) => navigate({ to: "/workspaces/$workspaceId/traces", params: { workspaceId: workspace.id }, search: next });

	return (
		<>
			<PageHeader title="Traces" description="Every generation: who asked, what answered, tokens, latency, cost and outcome. Open one to see the messages sent and the output." />
			<TraceFilters
				key={JSON.stringify({ ...search, before: undefined })}
				search={search}
				assistants={assistants.data ?? []}
				environments={environments.data ?? []}
				onApply={(next) => {
					setEarlier([]);
					void go(next);
				}}
			/>
			{traces.isPending ? <LoadingState label="Loading traces" /> : null}
			<ErrorAlert error={traces.error} />
			{traces.data && traces.data.traces.length === 0 ? (
				<EmptyState title="No generations match.">
					<p>Generations appear here as the runtime API, the playground and evaluations run.</p>
				</EmptyState>
			) : null}
			{traces.data && traces.data.traces.length > 0 ? (
				<>
					<Table
						caption="Generations, newest first"
						head={
							<>
								<th scope="col">Time</th>
								<th scope="col">Assistant</th>
								<th scope="col">Kind</th>
								<th scope="col">Caller</th>
								<th scope="col">Model</th>
								<th scope="col">Tokens</th>
								<th scope="col">Latency</th>
								<th scope="col">Cost</th>
								<th scope="col">Outcome</th>
							</>
						}
					>
						{traces.data.traces.map((trace) => (
							<tr key={trace.id}>
								<td>
									<Link to="/workspaces/$workspaceId/traces/$traceId" params={{ workspaceId: workspace.id, traceId: trace.id }} aria-label={`Trace of ${formatDateTime(trace.createdAt)} (${trace.id})`}>
										{formatDateTime(trace.createdAt)}
									</Link>
								</td>
								<td>
									{assistantName(trace.assistantId) ?? <span className="muted">none</span>}
									{trace.environmentId ? <div className="muted small">{environmentName(trace.environmentId)}</div> : null}
								</td>
								<td>{KIND_LABELS[trace.kind] ?? trace.kind}</td>
								<td className="small">
									{CALLER_LABELS[trace.principalType] ?? trace.principalType} <code className="break">{trace.principalId ?? ""}</code>
								</td>
								<td className="small">
									{trace.provider}/{trace.model}
								</td>
								<td className="number">{trace.inputTokens + trace.outputTokens}</td>
								<td className="number">{formatLatency(trace.latencyMs)}</td>
								<td className="number">{formatCost(trace.costMicroUsd)}</td>
								<td>{trace.errorCode ? <Badge tone="danger">Failed: {trace.errorCode}</Badge> : <Badge tone="success">Succeeded</Badge>}</td>
							</tr>
						))}
					</Table>
					<nav className="row spaced" aria-label="Pages of traces">
						<Button
							variant="secondary"
							disabled={earlier.length === 0}
							onClick={() => {
								const previous = earlier.at(-1);
								setEarlier(earlier.slice(0, -1));
								void go({ ...search, before: previous });
							}}
						>
							Newer
						</Button>
						<Button
							variant="secondary"
							disabled={!traces.data.nextBefore}
							onClick={() => {
								setEarlier([...earlier, search.before]);
								void go({ ...search, before: traces.data.nextBefore ?? undefined });
							}}
						>
							Older
						</Button>
					</nav>
				</>
			) : null}
		</>
	);
}

function TraceFilters({
	search,
	assistants,
	environments,
	onApply,
}: {
	search: TraceSearch;
	assistants: { id: string; slug: string; name: string }[];
	environments: { id: string; slug: string; name: string }[];
	onApply: (search: TraceSearch) => void;
}) {
	const { workspace } = useWorkspace();
	const [draft, setDraft] = useState<TraceSearch>({ ...search, before: undefined });
	const chosen = assistants.find((assistant) => assistant.id === draft.assistantId);
	const versions = useQuery({ ...versionsQuery(workspace.id, chosen?.slug ?? ""), enabled: chosen !== undefined });
	const set = (patch: Partial<TraceSearch>) => setDraft((current) => ({ ...current, ...patch }));
	const value = (text: string) => (text === "" ? undefined : text);
	const submit = (event: FormEvent) => {
		event.preventDefault();
		onApply(draft);
	};
	return (
		<form className="filters" onSubmit={submit} aria-label="Filter traces">
			<SelectField label="Assistant" value={draft.assistantId ?? ""} onChange={(event) => set({ assistantId: value(event.target.value), versionId: undefined })}>
				<option value="">Any assistant</option>
				{assistants.map((assistant) => (
					<option key={assistant.id} value={assistant.id}>
						{assistant.name}
					</option>
				))}
			</SelectField>
			<SelectField label="Version" value={draft.versionId ?? ""} onChange={(event) => set({ versionId: value(event.target.value) })} disabled={!chosen}>
				<option value="">{chosen ? "Any version" : "Choose an assistant first"}</option>
				{(versions.data ?? []).map((version) => (
					<option key={version.id} value={version.id}>
						Version {version.version}
					</option>
				))}
			</SelectField>
			<SelectField label="Environment" value={draft.environmentId ?? ""} onChange={(event) => set({ environmentId: value(event.target.value) })}>
				<option value="">Any environment</option>
				{environments.map((environment) => (
					<option key={environment.id} value={environment.id}>
						{environment.name}
					</option>
				))}
			</SelectField>
			<SelectField label="Kind" value={draft.kind ?? ""} onChange={(event) => set({ kind: value(event.target.value) as TraceSearch["kind"] })}>
				<option value="">Any kind</option>
				{Object.entries(KIND_LABELS).map(([kind, label]) => (
					<option key={kind} value={kind}>
						{label}
					</option>
				))}
			</SelectField>
			<SelectField label="Outcome" value={draft.outcome ?? ""} onChange={(event) => set({ outcome: value(event.target.value) as TraceSearch["outcome"] })}>
				<option value="">Any outcome</option>
				<option value="succeeded">Succeeded</option>
				<option value="failed">Failed</option>
			</SelectField>
			<SelectField label="Called through" value={draft.principalType ?? ""} onChange={(event) => set({ principalType: value(event.target.value) as TraceSearch["principalType"] })}>
				<option value="">Any way in</option>
				{Object.entries(CALLER_LABELS).map(([type, label]) => (
					<option key={type} value={type}>
						{label}
					</option>
				))}
			</SelectField>
			<TextField label="Caller" description="An API key id or a user id" value={draft.principalId ?? ""} onChange={(event) => set({ principalId: value(event.target.value.trim()) })} spellCheck={false} />
			<TextField label="From" type="datetime-local" value={draft.since ?? ""} onChange={(event) => set({ since: value(event.target.value) })} />
			<TextField label="Until" type="datetime-local" value={draft.until ?? ""} onChange={(event) => set({ until: value(event.target.value) })} />
			<div className="row">
				<Button type="submit">Apply filters</Button>
				<Button variant="ghost" onClick={() => onApply({})}>
					Clear
				</Button>
			</div>
		</form>
	);
}
