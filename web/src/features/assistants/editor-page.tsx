import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useBlocker } from "@tanstack/react-router";
import { type FormEvent, type ReactNode, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { Alert, ErrorAlert, FormErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { CheckboxField, SelectField, TextAreaField, TextField } from "../../ui/field";
import { formatDateTime } from "../../ui/format";
import { Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { type AssistantConfig, assistantQuery, assistantsKey, draftQuery, knowledgeSourcesQuery, providersQuery, versionsQuery } from "./assistant-queries";
import { useAssistantSlug } from "./assistant-layout";
import { comparable, type EditorState, fieldKey, type GenerationFields, type KnowledgeRow, newRowKey, patchFromState, stateFromConfig, type VariableRow, variableRow } from "./editor-model";
import { Playground } from "./playground";
import { PromptField } from "./prompt-field";

const PROVIDER_LABELS: Record<string, string> = { openai: "OpenAI", mistral: "Mistral", "openai-compatible": "OpenAI-compatible endpoint" };
const MODEL_SUGGESTIONS: Record<string, string[]> = {
	openai: ["gpt-4o-mini", "gpt-4o", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "o4-mini"],
	mistral: ["mistral-small-latest", "mistral-medium-latest", "mistral-large-latest", "open-mistral-nemo", "codestral-latest"],
	"openai-compatible": [],
};

/** The draft editor beside the playground. */
export function EditorPage() {
	const { workspace } = useWorkspace();
	const slug = useAssistantSlug();
	const draft = useQuery(draftQuery(workspace.id, slug));
	const versions = useQuery(versionsQuery(workspace.id, slug));
	if (draft.isPending) return <LoadingState label="Loading the draft" />;
	if (!draft.data) return <ErrorAlert error={draft.error} />;
	return <DraftEditor key={slug} slug={slug} config={draft.data.config} updatedAt={draft.data.updatedAt} versions={versions.data ?? []} />;
}

function DraftEditor({ slug, config, updatedAt, versions }: { slug: string; config: AssistantConfig; updatedAt: string; versions: { version: number; note: string | null; id: string; createdAt: string; createdByUserId: string | null }[] }) {
	const { workspace, role } = useWorkspace();
	const queryClient = useQueryClient();
	const canWrite = roleAtLeast(role, "member");
	const [saved, setSaved] = useState(() => stateFromConfig(config));
	const [state, setState] = useState(saved);
	const [localIssues, setLocalIssues] = useState<Record<string, string>>({});
	const providers = useQuery(providersQuery(workspace.id));
	const sources = useQuery(knowledgeSourcesQuery(workspace.id));
	const assistant = useQuery(assistantQuery(workspace.id, slug));
	const dirty = comparable(state) !== comparable(saved);
	// The stored draft changed underneath (a save here, another tab, another person): shown at once unless there are edits to keep.
	const [shownConfig, setShownConfig] = useState(config);
	if (config !== shownConfig) {
		setShownConfig(config);
		if (!dirty) {
			const next = stateFromConfig(config);
			setSaved(next);
			setState(next);
		}
	}

	const save = useMutation({
		mutationFn: async (patch: Record<string, unknown>) =>
			unwrap(await managementApi.assistants.updateAssistantDraft({ params: { workspaceId: workspace.id, slug }, body: { patch: patch as Partial<AssistantConfig> } })),
		onSuccess: (result) => {
			const next = stateFromConfig(result.config);
			setSaved(next);
			setState(next);
			// The new draft, as stored; the editor keeps its own state, so it is not re-keyed by this.
			queryClient.setQueryData(draftQuery(workspace.id, slug).queryKey, (current) => (current ? { ...current, config: result.config } : current));
		},
	});
	const blocker = useBlocker({ shouldBlockFn: () => dirty, enableBeforeUnload: () => dirty, withResolver: true });

	const serverIssues: Record<string, string> = {};
	if (save.error instanceof ApiError) for (const entry of save.error.fields) serverIssues[fieldKey(entry.field)] ??= entry.issue;
	const issues = { ...serverIssues, ...localIssues };
	const issue = (key: string) => issues[key];
	// Issues about fields without a form (tools, newer settings) are shown on the JSON field.
	const formKeys = (key: string) => /^(provider|model|systemPrompt|variables|knowledge|otherJson)(\.|$)/.test(key) || /^generation\.(temperature|maxOutputTokens|responseFormat|timeoutMs|maxRetries)$/.test(key);
	const jsonIssues = Object.entries(serverIssues).filter(([key]) => !formKeys(key));

	const update = (change: Partial<EditorState>) => setState((current) => ({ ...current, ...change }));
	const setGeneration = (key: keyof GenerationFields, value: string) => setState((current) => ({ ...current, generation: { ...current.generation, [key]: value } }));
	const setVariable = (index: number, change: Partial<VariableRow>) =>
		setState((current) => ({ ...current, variables: current.variables.map((row, at) => (at === index ? { ...row, ...change } : row)) }));
	const setKnowledge = (index: number, change: Partial<KnowledgeRow>) =>
		setState((current) => ({ ...current, knowledge: current.knowledge.map((row, at) => (at === index ? { ...row, ...change } : row)) }));
	const declared = new Set(state.variables.map((row) => row.name.trim()).filter(Boolean));

	const submit = (event: FormEvent) => {
		event.preventDefault();
		const { patch, issues: found } = patchFromState(state);
		setLocalIssues(found);
		save.reset();
		if (Object.keys(found).length === 0) save.mutate(patch);
	};

	const configured: string[] = providers.data?.filter((entry) => entry.configured).map((entry) => entry.provider) ?? [];
	const providerOptions = [...new Set([...configured, state.provider])];
	const sourceOptions = sources.data?.data ?? [];
	const readOnly = !canWrite;

	return (
		<>
			<div className="save-bar" role="region" aria-label="Draft status">
				<p className="muted" aria-live="polite">
					{dirty ? <strong>Unsaved changes</strong> : save.isSuccess ? "All changes saved." : `Draft saved ${formatDateTime(updatedAt)}.`}
				</p>
				{canWrite ? (
					<div className="row">
						<Button type="submit" form="draft-form" pending={save.isPending} disabled={!dirty}>
							Save draft
						</Button>
						<CreateVersionDialog workspaceId={workspace.id} slug={slug} blockedReason={dirty ? "Save your changes first: a version freezes the saved draft." : undefined} />
					</div>
				) : (
					<p className="muted">Read only: your role ({role}) cannot change assistants.</p>
				)}
			</div>
			{assistant.data?.archived ? <Alert tone="warning">This assistant is archived: you can edit and try it, but no environment serves it until it is restored.</Alert> : null}
			<div className="editor-layout">
				<form id="draft-form" onSubmit={submit} noValidate aria-label="Draft configuration">
					{save.error ? <FormErrorAlert title={`Not saved: ${save.error.message}`} error={save.error} fieldsShown={() => true} /> : null}
					{!save.error && Object.keys(localIssues).length > 0 ? (
						<Alert title="Not saved: some fields need attention">
							<p>The fields marked below say why.</p>
						</Alert>
					) : null}
					<Section title="Model">
						<div className="field-grid">
							<SelectField
								label="Provider"
								description={configured.length === 0 && providers.isSuccess ? "No provider credential in this workspace yet." : "Providers this workspace holds a credential for."}
								value={state.provider}
								onChange={(event) => update({ provider: event.target.value })}
								disabled={readOnly}
								error={issue("provider")}
							>
								{providerOptions.map((provider) => (
									<option key={provider} value={provider}>
										{PROVIDER_LABELS[provider] ?? provider}
										{configured.includes(provider) || !providers.isSuccess ? "" : " (no credential in this workspace)"}
									</option>
								))}
							</SelectField>
							<TextField
								label="Model"
								value={state.model}
								onChange={(event) => update({ model: event.target.value })}
								readOnly={readOnly}
								list="model-suggestions"
								spellCheck={false}
								error={issue("model")}
							/>
							<datalist id="model-suggestions">
								{(MODEL_SUGGESTIONS[state.provider] ?? []).map((model) => (
									<option key={model} value={model} />
								))}
							</datalist>
						</div>
						{providers.isSuccess && !configured.includes(state.provider) ? (
							<Alert tone="warning">
								This workspace has no credential for {PROVIDER_LABELS[state.provider] ?? state.provider}: runs are refused until an administrator adds one.
							</Alert>
						) : null}
					</Section>

					<Section title="Prompt">
						<PromptField
							value={state.systemPrompt}
							onChange={(systemPrompt) => update({ systemPrompt })}
							declared={declared}
							onDeclare={canWrite ? (name) => setState((current) => ({ ...current, variables: [...current.variables, variableRow(name)] })) : undefined}
							error={issue("systemPrompt")}
							readOnly={readOnly}
						/>
					</Section>

					<Section
						title="Variables"
						description="Values callers send with each run; required ones must be given, optional ones fall back to their default (or nothing)."
						actions={
							canWrite ? (
								<Button variant="secondary" size="small" onClick={() => setState((current) => ({ ...current, variables: [...current.variables, variableRow("")] }))}>
									Add variable
								</Button>
							) : null
						}
					>
						{issue("variables") ? <p className="field-error">{issue("variables")}</p> : null}
						{state.variables.length === 0 ? <p className="muted">No variables.</p> : null}
						{state.variables.map((row, index) => (
							<VariableFields
								key={row.key}
								row={row}
								index={index}
								readOnly={readOnly}
								issue={(field) => issue(`variables.${index}.${field}`)}
								onChange={(change) => setVariable(index, change)}
								onRemove={() => setState((current) => ({ ...current, variables: current.variables.filter((_, at) => at !== index) }))}
							/>
						))}
					</Section>

					<Section title="Generation settings" description="Left empty, the provider's default (or the platform's, for timeout and retries) applies.">
						<div className="field-grid">
							<TextField label="Temperature" description="0 to 2" inputMode="decimal" value={state.generation.temperature} onChange={(event) => setGeneration("temperature", event.target.value)} readOnly={readOnly} error={issue("generation.temperature")} />
							<TextField label="Max output tokens" inputMode="numeric" value={state.generation.maxOutputTokens} onChange={(event) => setGeneration("maxOutputTokens", event.target.value)} readOnly={readOnly} error={issue("generation.maxOutputTokens")} />
							<SelectField label="Response format" value={state.generation.responseFormat} onChange={(event) => setGeneration("responseFormat", event.target.value)} disabled={readOnly} error={issue("generation.responseFormat")}>
								<option value="">Default (text)</option>
								<option value="text">Text</option>
								<option value="json">JSON</option>
							</SelectField>
							<TextField label="Timeout (ms)" inputMode="numeric" value={state.generation.timeoutMs} onChange={(event) => setGeneration("timeoutMs", event.target.value)} readOnly={readOnly} error={issue("generation.timeoutMs")} />
							<TextField label="Retries" description="0 to 10" inputMode="numeric" value={state.generation.maxRetries} onChange={(event) => setGeneration("maxRetries", event.target.value)} readOnly={readOnly} error={issue("generation.maxRetries")} />
						</div>
					</Section>

					<Section
						title="Knowledge"
						description="Sources searched with the caller's input; the best chunks go into the prompt as reference material."
						actions={
							canWrite && sourceOptions.length > 0 ? (
								<Button
									variant="secondary"
									size="small"
									onClick={() => setState((current) => ({ ...current, knowledge: [...current.knowledge, { key: newRowKey(), sourceId: sourceOptions[0]?.id ?? "", topK: "5", minScore: "" }] }))}
								>
									Attach a source
								</Button>
							) : null
						}
					>
						{issue("knowledge") ? <p className="field-error">{issue("knowledge")}</p> : null}
						{state.knowledge.length === 0 ? <p className="muted">{sources.data && sourceOptions.length === 0 ? "No knowledge sources in this workspace yet." : "No source attached."}</p> : null}
						{state.knowledge.map((row, index) => (
							<fieldset key={row.key} className="row-card">
								<legend>Source {index + 1}</legend>
								<div className="field-grid">
									<SelectField label="Source" value={row.sourceId} onChange={(event) => setKnowledge(index, { sourceId: event.target.value })} disabled={readOnly} error={issue(`knowledge.${index}.sourceId`)}>
										{sourceOptions.some((source) => source.id === row.sourceId) ? null : <option value={row.sourceId}>{row.sourceId} (not found)</option>}
										{sourceOptions.map((source) => (
											<option key={source.id} value={source.id}>
												{source.name}
											</option>
										))}
									</SelectField>
									<TextField label="Top K" description="Chunks taken, 1 to 50" inputMode="numeric" value={row.topK} onChange={(event) => setKnowledge(index, { topK: event.target.value })} readOnly={readOnly} error={issue(`knowledge.${index}.topK`)} />
									<TextField
										label="Min score"
										description="0 to 1; empty: 0.25"
										inputMode="decimal"
										value={row.minScore}
										onChange={(event) => setKnowledge(index, { minScore: event.target.value })}
										readOnly={readOnly}
										error={issue(`knowledge.${index}.minScore`)}
									/>
								</div>
								{canWrite ? (
									<div className="row-card-actions">
										<Button variant="ghost" size="small" onClick={() => setState((current) => ({ ...current, knowledge: current.knowledge.filter((_, at) => at !== index) }))}>
											Detach source {index + 1}
										</Button>
									</div>
								) : null}
							</fieldset>
						))}
					</Section>

					<Section title="Other settings (JSON)" description="Configuration fields this page has no form for yet, edited as JSON. To remove one, set it to its empty value (for example [] for a list).">
						<TextAreaField
							label="Other settings"
							className="input textarea json-field"
							value={state.otherJson}
							onChange={(event) => update({ otherJson: event.target.value })}
							readOnly={readOnly}
							spellCheck={false}
							error={[issue("otherJson"), ...jsonIssues.map(([key, text]) => `${key}: ${text}`)].filter(Boolean).join(" · ") || undefined}
						/>
					</Section>
				</form>
				<Playground workspaceId={workspace.id} slug={slug} draftConfig={config} versions={versions} unsavedChanges={dirty} canRun={canWrite} role={role} />
			</div>
			<Dialog open={blocker.status === "blocked"} onOpenChange={(open) => (open ? null : blocker.reset?.())} title="Leave without saving?" description="The draft has changes that are not saved; leaving discards them.">
				<div className="dialog-actions">
					<Button variant="secondary" onClick={() => blocker.reset?.()}>
						Stay on this page
					</Button>
					<Button variant="danger" onClick={() => blocker.proceed?.()}>
						Discard changes and leave
					</Button>
				</div>
			</Dialog>
		</>
	);
}

function VariableFields({
	row,
	index,
	readOnly,
	issue,
	onChange,
	onRemove,
}: {
	row: VariableRow;
	index: number;
	readOnly: boolean;
	issue: (field: string) => string | undefined;
	onChange: (change: Partial<VariableRow>) => void;
	onRemove: () => void;
}) {
	const title = row.name.trim() ? `Variable ${row.name.trim()}` : `Variable ${index + 1}`;
	let defaultInput: ReactNode;
	if (row.type === "boolean") {
		defaultInput = (
			<SelectField label="Default" value={row.defaultText} onChange={(event) => onChange({ defaultText: event.target.value })} disabled={readOnly} error={issue("default")}>
				<option value="">None</option>
				<option value="true">true</option>
				<option value="false">false</option>
			</SelectField>
		);
	} else {
		defaultInput = (
			<TextField
				label="Default"
				optional
				inputMode={row.type === "number" ? "decimal" : undefined}
				value={row.defaultText}
				onChange={(event) => onChange({ defaultText: event.target.value })}
				readOnly={readOnly}
				error={issue("default")}
			/>
		);
	}
	return (
		<fieldset className="row-card">
			<legend>{title}</legend>
			<div className="field-grid">
				<TextField label="Name" value={row.name} onChange={(event) => onChange({ name: event.target.value })} readOnly={readOnly} spellCheck={false} error={issue("name")} />
				<SelectField
					label="Type"
					value={row.type}
					onChange={(event) => onChange({ type: event.target.value as VariableRow["type"], defaultText: "" })}
					disabled={readOnly}
					error={issue("type")}
				>
					<option value="string">Text</option>
					<option value="number">Number</option>
					<option value="boolean">True or false</option>
				</SelectField>
				{defaultInput}
				<TextField label="Description" optional value={row.description} onChange={(event) => onChange({ description: event.target.value })} readOnly={readOnly} error={issue("description")} />
			</div>
			<CheckboxField label="Required" checked={row.required} onChange={(event) => onChange({ required: event.target.checked })} disabled={readOnly} />
			{readOnly ? null : (
				<div className="row-card-actions">
					<Button variant="ghost" size="small" onClick={onRemove}>
						Remove {title.toLowerCase()}
					</Button>
				</div>
			)}
		</fieldset>
	);
}

function CreateVersionDialog({ workspaceId, slug, blockedReason }: { workspaceId: string; slug: string; blockedReason?: string }) {
	const queryClient = useQueryClient();
	const [open, setOpen] = useState(false);
	const [note, setNote] = useState("");
	const create = useMutation({
		mutationFn: async () => unwrap(await managementApi.assistants.createAssistantVersion({ params: { workspaceId, slug }, body: note.trim() ? { note: note.trim() } : {} })),
		onSuccess: async () => {
			await queryClient.invalidateQueries({ queryKey: assistantsKey(workspaceId) });
			setOpen(false);
			setNote("");
		},
	});
	const submit = (event: FormEvent) => {
		event.preventDefault();
		create.mutate();
	};
	return (
		<>
			<Dialog
				open={open}
				onOpenChange={(next) => {
					setOpen(next);
					if (next) create.reset();
				}}
				title="Create a version"
				description="Freezes the saved draft as the next version number. Versions never change; publishing one makes an environment serve it."
				trigger={
					<Button variant="secondary" disabled={Boolean(blockedReason)} aria-describedby={blockedReason ? "create-version-blocked" : undefined}>
						Create version
					</Button>
				}
			>
				<form onSubmit={submit} noValidate>
					<FormErrorAlert error={create.error} fieldsShown={(field) => field === "note"} />
					<TextAreaField
						label="Note"
						optional
						description="What changed, for the history."
						value={note}
						onChange={(event) => setNote(event.target.value)}
						rows={3}
						autoFocus
						error={create.error instanceof ApiError ? create.error.issueFor("note") : undefined}
					/>
					<div className="dialog-actions">
						<Button variant="secondary" onClick={() => setOpen(false)}>
							Cancel
						</Button>
						<Button type="submit" pending={create.isPending}>
							Create version
						</Button>
					</div>
				</form>
			</Dialog>
			{blockedReason ? (
				<span id="create-version-blocked" className="muted small">
					{blockedReason}
				</span>
			) : null}
			{create.isSuccess ? (
				<span className="small" role="status">
					Version {create.data.version} created.{" "}
					<Link to="/workspaces/$workspaceId/assistants/$slug/deployments" params={{ workspaceId, slug }}>
						Publish it
					</Link>
				</span>
			) : null}
		</>
	);
}
