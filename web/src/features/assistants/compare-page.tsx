import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { useWorkspace } from "../../app/workspace-context";
import { ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { CheckboxField, SelectField } from "../../ui/field";
import { EmptyState, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { Table } from "../../ui/table";
import { type AssistantConfig, draftQuery, versionQuery, versionsQuery } from "./assistant-queries";
import { useAssistantSlug } from "./assistant-layout";
import { diffConfigs, diffLines } from "./diff";
import type { CompareSearch } from "./routes";

const sideName = (side: string) => (side === "draft" ? "the saved draft" : `version ${side}`);

/** Two configurations side by side: every field that differs, and the prompt line by line. */
export function ComparePage() {
	const { workspace } = useWorkspace();
	const slug = useAssistantSlug();
	const navigate = useNavigate();
	const search = useSearch({ strict: false }) as CompareSearch;
	const versions = useQuery(versionsQuery(workspace.id, slug));
	const numbers = versions.data?.map((entry) => entry.version) ?? [];
	const from = search.from ?? (numbers[1] !== undefined ? String(numbers[1]) : numbers[0] !== undefined ? String(numbers[0]) : "draft");
	const to = search.to ?? (numbers[0] !== undefined && numbers[1] !== undefined ? String(numbers[0]) : "draft");
	const before = useConfig(workspace.id, slug, from);
	const after = useConfig(workspace.id, slug, to);
	const choose = (side: "from" | "to", value: string) =>
		void navigate({ to: "/workspaces/$workspaceId/assistants/$slug/compare", params: { workspaceId: workspace.id, slug }, search: { from, to, [side]: value } });
	const options = (
		<>
			{numbers.map((version) => (
				<option key={version} value={String(version)}>
					Version {version}
				</option>
			))}
			<option value="draft">The saved draft</option>
		</>
	);
	return (
		<>
			<Section title="Compare" description="What changed from one configuration to the other.">
				<form className="inline-form" aria-label="Choose what to compare" onSubmit={(event) => event.preventDefault()}>
					<SelectField label="From" value={from} onChange={(event) => choose("from", event.target.value)}>
						{options}
					</SelectField>
					<SelectField label="To" value={to} onChange={(event) => choose("to", event.target.value)}>
						{options}
					</SelectField>
				</form>
			</Section>
			{before.isPending || after.isPending || versions.isPending ? <LoadingState label="Loading both configurations" /> : null}
			<ErrorAlert error={before.error ?? after.error ?? versions.error} />
			{before.config && after.config ? <Differences before={before.config} after={after.config} from={from} to={to} /> : null}
		</>
	);
}

function useConfig(workspaceId: string, slug: string, side: string): { config?: AssistantConfig; isPending: boolean; error: unknown } {
	const isDraft = side === "draft";
	const version = useQuery({ ...versionQuery(workspaceId, slug, isDraft ? 0 : Number(side)), enabled: !isDraft });
	const draft = useQuery({ ...draftQuery(workspaceId, slug), enabled: isDraft });
	const source = isDraft ? draft : version;
	return { config: source.data?.config, isPending: source.isPending, error: source.error };
}

function Differences({ before, after, from, to }: { before: AssistantConfig; after: AssistantConfig; from: string; to: string }) {
	const [showUnchanged, setShowUnchanged] = useState(false);
	const fields = useMemo(() => diffConfigs(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>), [before, after]);
	const lines = useMemo(() => diffLines(before.systemPrompt, after.systemPrompt), [before, after]);
	const changed = fields.filter((field) => field.change !== "same");
	const shown = showUnchanged ? fields : changed;
	const added = lines.filter((line) => line.kind === "added").length;
	const removed = lines.filter((line) => line.kind === "removed").length;
	return (
		<>
			<Section title="Configuration" description={`${changed.length === 0 ? "No setting differs" : `${changed.length} ${changed.length === 1 ? "setting differs" : "settings differ"}`} between ${sideName(from)} and ${sideName(to)} (the prompt is compared below).`}>
				<CheckboxField label="Show unchanged settings too" checked={showUnchanged} onChange={(event) => setShowUnchanged(event.target.checked)} />
				{shown.length > 0 ? (
					<Table
						caption={`Settings of ${sideName(from)} and ${sideName(to)}`}
						head={
							<>
								<th scope="col">Setting</th>
								<th scope="col">{sideName(from)}</th>
								<th scope="col">{sideName(to)}</th>
								<th scope="col">Change</th>
							</>
						}
					>
						{shown.map((field) => (
							<tr key={field.field}>
								<th scope="row">
									<code>{field.field}</code>
								</th>
								<td className="diff-value">{field.before ?? <span className="muted">(not set)</span>}</td>
								<td className="diff-value">{field.after ?? <span className="muted">(not set)</span>}</td>
								<td>
									<Badge tone={field.change === "same" ? "neutral" : field.change === "added" ? "success" : field.change === "removed" ? "danger" : "warning"}>
										{field.change === "same" ? "unchanged" : field.change}
									</Badge>
								</td>
							</tr>
						))}
					</Table>
				) : null}
			</Section>
			<Section title="System prompt" description={added + removed === 0 ? "The prompts are the same." : `${removed} ${removed === 1 ? "line" : "lines"} removed, ${added} added.`}>
				{added + removed === 0 ? (
					<EmptyState title="No change to the prompt." />
				) : (
					<div className="table-wrap">
						<table className="table diff-table">
							<caption className="visually-hidden">
								The system prompt, line by line, from {sideName(from)} to {sideName(to)}
							</caption>
							<thead>
								<tr>
									<th scope="col">
										<abbr title={sideName(from)}>Old</abbr>
									</th>
									<th scope="col">
										<abbr title={sideName(to)}>New</abbr>
									</th>
									<th scope="col">
										<span className="visually-hidden">Change</span>
									</th>
									<th scope="col">Line</th>
								</tr>
							</thead>
							<tbody>
								{lines.map((line, index) => (
									<tr key={index} className={line.kind === "added" ? "diff-added" : line.kind === "removed" ? "diff-removed" : undefined}>
										<td className="number">{line.before ?? ""}</td>
										<td className="number">{line.after ?? ""}</td>
										<td className="diff-marker">
											<span aria-hidden="true">{line.kind === "added" ? "+" : line.kind === "removed" ? "−" : ""}</span>
											<span className="visually-hidden">{line.kind === "added" ? "Added" : line.kind === "removed" ? "Removed" : "Unchanged"}</span>
										</td>
										<td>{line.text || "\u00a0"}</td>
									</tr>
								))}
							</tbody>
						</table>
					</div>
				)}
			</Section>
		</>
	);
}
