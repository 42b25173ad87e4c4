import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { CheckboxField, SelectField, TextAreaField, TextField } from "../../ui/field";
import { providersQuery } from "../assistants/assistant-queries";
import { type EvaluationCase, evaluationsKey } from "./evaluation-queries";
import { newScorerDraft, SCORER_LABELS, SCORER_TYPES, type ScorerDraft, scorerDraftFrom, ScorerFormError, type ScorerType, scorerSpecFrom } from "./scorer-drafts";
import { FormErrorAlert } from "../../ui/alert";

/**
 * A case's form: its input, expected output, variables and scorers, each scorer with its own
 * fields. With `replacing`, the form starts from that case and saving replaces it.
 */
export function CaseDialog({ workspaceId, datasetId, replacing, trigger }: { workspaceId: string; datasetId: string; replacing?: EvaluationCase; trigger: ReactNode }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const initial = () => ({
		input: replacing?.input ?? "",
		expected: replacing?.expectedOutput ?? "",
		variables: replacing && Object.keys(replacing.variables).length > 0 ? JSON.stringify(replacing.variables, null, 2) : "",
		scorers: replacing ? replacing.scorers.map((spec) => scorerDraftFrom(spec)) : [newScorerDraft("exact_match")],
	});
	const [form, setForm] = useState(initial);
	const [localIssue, setLocalIssue] = useState<{ field: string; issue: string } | null>(null);
	const save = useMutation({
		mutationFn: async () => {
			setLocalIssue(null);
			let variables: unknown = {};
			if (form.variables.trim()) {
				try {
					variables = JSON.parse(form.variables);
				} catch (error) {
					throw new ScorerFormError("variables", `Not JSON: ${(error as Error).message}`);
				}
			}
			const body = {
				// A conversation is kept as it is; this form edits a single input.
				...(replacing?.messages ? { messages: replacing.messages as { role: "user" | "assistant" | "system"; content: string }[] } : { input: form.input }),
				...(form.expected ? { expectedOutput: form.expected } : {}),
				variables: variables as Record<string, string>,
				scorers: form.scorers.map((draft, index) => scorerSpecFrom(draft, index)) as never,
			};
			return replacing
				? unwrap(await managementApi.evaluations.replaceEvaluationCase({ params: { workspaceId, datasetId, caseId: replacing.id }, body }))
				: unwrap(await managementApi.evaluations.addEvaluationCase({ params: { workspaceId, datasetId }, body }));
		},
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspaceId) });
			setOpen(false);
		},
		onError: (error) => {
			if (error instanceof ScorerFormError) setLocalIssue({ field: error.field, issue: error.message });
		},
	});
	const issue = (field: string) => {
		if (localIssue?.field === field) return localIssue.issue;
		if (!(save.error instanceof ApiError)) return undefined;
		// The use case names `scorers.0.pattern`; the body's own check `scorers[0].pattern`.
		return save.error.issueFor(field) ?? save.error.issueFor(field.replace(/\.(\d+)\./, "[$1]."));
	};
	const shownFields = (field: string) => /^(input|expectedOutput|variables|scorers(\.|\[)\d+\]?\.\w+)$/.test(field.replace(/^body\./, ""));
	const setScorer = (index: number, patch: Partial<ScorerDraft>) => setForm((current) => ({ ...current, scorers: current.scorers.map((draft, at) => (at === index ? { ...draft, ...patch } : draft)) }));
	const submit = (event: FormEvent) => {
		event.preventDefault();
		save.mutate();
	};
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (next) setForm(initial());
				else {
					save.reset();
					setLocalIssue(null);
				}
			}}
			title={replacing ? "Replace case" : "New case"}
			description={replacing ? "Cases never change: the new one takes this one's place; past runs keep the old one." : "What the assistant receives and how its answer is scored."}
			trigger={trigger}
		>
			<form onSubmit={submit} noValidate>
				{save.error instanceof ScorerFormError ? null : <FormErrorAlert error={save.error} fieldsShown={shownFields} />}
				{replacing?.messages ? (
					<p className="muted">This case is a conversation of {replacing.messages.length} messages, kept as it is.</p>
				) : (
					<TextAreaField label="Input" value={form.input} onChange={(event) => setForm({ ...form, input: event.target.value })} error={issue("input")} rows={3} required autoFocus />
				)}
				<TextAreaField
					label="Expected output"
					optional
					description="What exact match, contains and number compare against when they are given no value of their own."
					value={form.expected}
					onChange={(event) => setForm({ ...form, expected: event.target.value })}
					error={issue("expectedOutput")}
					rows={2}
				/>
				<TextAreaField
					label="Variables"
					optional
					description={'The prompt variables, as JSON: {"customer": "Ada"}'}
					value={form.variables}
					onChange={(event) => setForm({ ...form, variables: event.target.value })}
					error={issue("variables")}
					rows={2}
					spellCheck={false}
					className="input textarea mono"
				/>
				<fieldset className="scorer-list">
					<legend>Scorers</legend>
					{form.scorers.map((draft, index) => (
						<ScorerFields
							// The list is edited in place: a scorer's position is its identity.
							key={index}
							index={index}
							draft={draft}
							workspaceId={workspaceId}
							onChange={(patch) => setScorer(index, patch)}
							onRemove={form.scorers.length > 1 ? () => setForm({ ...form, scorers: form.scorers.filter((_, at) => at !== index) }) : undefined}
							issue={(field) => issue(`scorers.${index}.${field}`)}
						/>
					))}
					<Button variant="secondary" size="small" onClick={() => setForm({ ...form, scorers: [...form.scorers, newScorerDraft("contains")] })}>
						Add a scorer
					</Button>
				</fieldset>
				<div className="dialog-actions">
					<Button variant="secondary" onClick={() => setOpen(false)}>
						Cancel
					</Button>
					<Button type="submit" pending={save.isPending}>
						{replacing ? "Replace case" : "Add case"}
					</Button>
				</div>
			</form>
		</Dialog>
	);
}

function ScorerFields({
	index,
	draft,
	workspaceId,
	onChange,
	onRemove,
	issue,
}: {
	index: number;
	draft: ScorerDraft;
	workspaceId: string;
	onChange: (patch: Partial<ScorerDraft>) => void;
	onRemove?: () => void;
	issue: (field: string) => string | undefined;
}) {
	const number = index + 1;
	const providers = useQuery({ ...providersQuery(workspaceId), enabled: draft.type === "rubric" });
	const label = (text: string) => `Scorer ${number} ${text}`;
	return (
		<div className="row-card" role="group" aria-label={`Scorer ${number}`}>
			<div className="field-grid">
				<SelectField label={label("type")} value={draft.type} onChange={(event) => onChange({ ...newScorerDraft(event.target.value as ScorerType), name: draft.name })}>
					{SCORER_TYPES.map((type) => (
						<option key={type} value={type}>
							{SCORER_LABELS[type]}
						</option>
					))}
				</SelectField>
				<TextField label={label("name")} optional description="How results name it; defaults to its type." value={draft.name} onChange={(event) => onChange({ name: event.target.value })} error={issue("name")} />
			</div>
			{draft.type === "exact_match" ? (
				<>
					<CheckboxField label="Case-sensitive" checked={draft.caseSensitive} onChange={(event) => onChange({ caseSensitive: event.target.checked })} />
					<CheckboxField label="Ignore leading and trailing spaces" checked={draft.trim} onChange={(event) => onChange({ trim: event.target.checked })} />
				</>
			) : null}
			{draft.type === "contains" ? (
				<>
					<TextField label={label("text to find")} optional description="Defaults to the expected output." value={draft.value} onChange={(event) => onChange({ value: event.target.value })} error={issue("value")} />
					<CheckboxField label="Case-sensitive" checked={draft.caseSensitive} onChange={(event) => onChange({ caseSensitive: event.target.checked })} />
				</>
			) : null}
			{draft.type === "regex" ? (
				<div className="field-grid">
					<TextField
						label={label("pattern")}
						description="RE2 syntax, found anywhere in the output (no backreferences or lookaround)."
						value={draft.pattern}
						onChange={(event) => onChange({ pattern: event.target.value })}
						error={issue("pattern")}
						spellCheck={false}
						className="input mono"
					/>
					<TextField label={label("flags")} optional description="Any of i, m, s, u." value={draft.flags} onChange={(event) => onChange({ flags: event.target.value })} error={issue("flags")} spellCheck={false} />
				</div>
			) : null}
			{draft.type === "json" ? (
				<TextAreaField
					label={label("JSON Schema")}
					optional
					description="The output must parse as JSON; with a schema, it must also satisfy it."
					value={draft.schema}
					onChange={(event) => onChange({ schema: event.target.value })}
					error={issue("schema")}
					rows={4}
					spellCheck={false}
					className="input textarea mono"
				/>
			) : null}
			{draft.type === "numeric" ? (
				<div className="field-grid">
					<TextField label={label("expected number")} optional description="Defaults to the expected output." inputMode="decimal" value={draft.expected} onChange={(event) => onChange({ expected: event.target.value })} error={issue("expected")} />
					<TextField label={label("tolerance")} description="Largest difference that passes." inputMode="decimal" value={draft.tolerance} onChange={(event) => onChange({ tolerance: event.target.value })} error={issue("tolerance")} />
					<TextField label={label("relative tolerance")} optional description="As a fraction of the expected value, 0 to 1." inputMode="decimal" value={draft.relativeTolerance} onChange={(event) => onChange({ relativeTolerance: event.target.value })} error={issue("relativeTolerance")} />
				</div>
			) : null}
			{draft.type === "rubric" ? (
				<>
					<TextAreaField label={label("criteria")} description="What a good answer does; the grading model scores the output against it from 0 to 1." value={draft.criteria} onChange={(event) => onChange({ criteria: event.target.value })} error={issue("criteria")} rows={3} />
					<div className="field-grid">
						<SelectField label={label("grading provider")} value={draft.provider} onChange={(event) => onChange({ provider: event.target.value })} error={issue("provider")}>
							{(providers.data ?? [{ provider: draft.provider, configured: true }]).map((entry) => (
								<option key={entry.provider} value={entry.provider}>
									{entry.provider}
									{entry.configured ? "" : " (no credential)"}
								</option>
							))}
						</SelectField>
						<TextField label={label("grading model")} value={draft.model} onChange={(event) => onChange({ model: event.target.value })} error={issue("model")} spellCheck={false} />
						<TextField label={label("pass threshold")} description="0 to 1; scores at or above it pass." inputMode="decimal" value={draft.passThreshold} onChange={(event) => onChange({ passThreshold: event.target.value })} error={issue("passThreshold")} />
					</div>
				</>
			) : null}
			{onRemove ? (
				<Button variant="ghost" size="small" onClick={onRemove}>
					Remove scorer {number}
				</Button>
			) : null}
		</div>
	);
}
