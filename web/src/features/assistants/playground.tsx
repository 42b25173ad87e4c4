import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError } from "../../api/management-client";
import { postForEvents } from "../../api/sse";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { SelectField, TextAreaField, TextField } from "../../ui/field";
import { Section } from "../../ui/page";
import { Spinner } from "../../ui/spinner";
import { type AssistantConfig, type AssistantVersion, traceQuery, versionQuery } from "./assistant-queries";

type PromptVariable = AssistantConfig["variables"][number];

interface ToolActivity {
	id: string;
	name: string;
	ok?: boolean;
	error?: string;
}

interface Run {
	text: string;
	usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
	finishReason?: string;
	traceId?: string;
	/** A failure after the answer started (a terminal `error` event). */
	streamError?: { code: string; message: string };
	tools: ToolActivity[];
	startedAt: number;
	finishedAt?: number;
}

const usd = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });
const milliseconds = (value: number) => (value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`);

/**
 * One turn against the saved draft or a version, streamed as it is written: the variables the
 * configuration declares, an input, the answer, then tokens, latency and cost from the trace the
 * run recorded. Runs cost money: members and above only.
 */
export function Playground({
	workspaceId,
	slug,
	draftConfig,
	versions,
	unsavedChanges,
	canRun,
	role,
}: {
	workspaceId: string;
	slug: string;
	draftConfig: AssistantConfig;
	versions: AssistantVersion[];
	unsavedChanges: boolean;
	canRun: boolean;
	role: string;
}) {
	const queryClient = useQueryClient();
	const [target, setTarget] = useState("draft");
	const [values, setValues] = useState<Record<string, string>>({});
	const initialInput = (useSearch({ strict: false }) as { input?: string }).input;
	const [input, setInput] = useState(initialInput ?? "");
	const [run, setRun] = useState<Run | null>(null);
	const [now, setNow] = useState(Date.now());
	const abort = useRef<AbortController | null>(null);
	const pinned = target === "draft" ? undefined : Number(target);
	const version = useQuery({ ...versionQuery(workspaceId, slug, pinned ?? 0), enabled: pinned !== undefined });
	const config = pinned === undefined ? draftConfig : version.data?.config;
	const variables = config?.variables ?? [];

	const start = useMutation({
		mutationFn: async () => {
			abort.current?.abort();
			const controller = new AbortController();
			abort.current = controller;
			const body = { input, ...(pinned === undefined ? {} : { version: pinned }), variables: variableValues(variables, values) };
			const startedAt = Date.now();
			setRun({ text: "", tools: [], startedAt });
			const events = await postForEvents(`/management/workspaces/${encodeURIComponent(workspaceId)}/assistants/${encodeURIComponent(slug)}/playground`, body, controller.signal);
			let traceId: string | undefined;
			for await (const { event, data } of events) {
				const payload = data as Record<string, unknown>;
				if (event === "delta") setRun((current) => current && { ...current, text: current.text + String(payload.content ?? "") });
				else if (event === "usage") setRun((current) => current && { ...current, usage: payload as Run["usage"] });
				else if (event === "tool_call") setRun((current) => current && { ...current, tools: [...current.tools, { id: String(payload.id), name: String(payload.name) }] });
				else if (event === "tool_result")
					setRun(
						(current) =>
							current && {
								...current,
								tools: current.tools.map((tool) => (tool.id === payload.id ? { ...tool, ok: Boolean(payload.ok), error: payload.error as string | undefined } : tool)),
							},
					);
				else if (event === "error") setRun((current) => current && { ...current, streamError: { code: String(payload.code), message: String(payload.message) } });
				else if (event === "done") {
					traceId = String(payload.traceId);
					setRun((current) => current && { ...current, finishReason: String(payload.finishReason), traceId });
				}
			}
			setRun((current) => current && { ...current, finishedAt: Date.now() });
			if (traceId) await queryClient.prefetchQuery(traceQuery(workspaceId, traceId));
		},
		onError: () => setRun((current) => current && { ...current, finishedAt: Date.now() }),
	});
	const running = start.isPending;
	useEffect(() => {
		if (!running) return;
		const timer = setInterval(() => setNow(Date.now()), 250);
		return () => clearInterval(timer);
	}, [running]);
	// Leaving the page stops the generation (the server cancels the provider request).
	useEffect(() => () => abort.current?.abort(), []);

	const trace = useQuery({ ...traceQuery(workspaceId, run?.traceId ?? ""), enabled: Boolean(run?.traceId) && !running });
	const issue = (field: string) => (start.error instanceof ApiError ? start.error.fields.find((entry) => entry.field === field)?.issue : undefined);
	const aborted = start.error instanceof DOMException && start.error.name === "AbortError";
	const submit = (event: FormEvent) => {
		event.preventDefault();
		if (!running) start.mutate();
	};

	return (
		<Section title="Playground" description="Try the assistant before publishing it: nothing is deployed, the run is traced as a playground run and counts towards the workspace's spend.">
			{canRun ? null : <Alert tone="info">Your role ({role}) can read this assistant; running it costs money and needs member or above.</Alert>}
			<form onSubmit={submit} noValidate aria-label="Playground">
				<SelectField label="Run against" value={target} onChange={(event) => setTarget(event.target.value)} disabled={running}>
					<option value="draft">The saved draft</option>
					{versions.map((entry) => (
						<option key={entry.version} value={String(entry.version)}>
							Version {entry.version}
							{entry.note ? `: ${entry.note}` : ""}
						</option>
					))}
				</SelectField>
				{pinned === undefined && unsavedChanges ? <Alert tone="warning">The playground runs the saved draft: save your changes to try them.</Alert> : null}
				{pinned !== undefined && version.isPending ? <p className="muted">Loading version {pinned}…</p> : null}
				{variables.length > 0 ? (
					<fieldset>
						<legend>Variables</legend>
						{variables.map((variable) => (
							<VariableInput
								key={variable.name}
								variable={variable}
								value={values[variable.name] ?? ""}
								onChange={(value) => setValues((current) => ({ ...current, [variable.name]: value }))}
								error={issue(`variables.${variable.name}`)}
							/>
						))}
					</fieldset>
				) : null}
				<TextAreaField label="Input" description="The user's turn, as a program would send it." value={input} onChange={(event) => setInput(event.target.value)} rows={3} error={issue("input")} />
				<div className="row">
					<Button type="submit" pending={running} disabled={!canRun || (pinned !== undefined && !config)}>
						{running ? "Running" : "Run"}
					</Button>
					{running ? (
						<Button variant="secondary" onClick={() => abort.current?.abort()}>
							Stop
						</Button>
					) : null}
					<span className="muted row" role="status">
						{running && run ? (
							<>
								<Spinner size="small" />
								{run.text ? "Answering…" : "Waiting for the model…"}
							</>
						) : null}
					</span>
					{running && run ? (
						<span className="muted" aria-hidden="true">
							{milliseconds(now - run.startedAt)}
						</span>
					) : null}
				</div>
			</form>
			{start.error && !aborted ? <ErrorAlert error={start.error} title="The run was refused" /> : null}
			{aborted ? <Alert tone="info">Stopped.</Alert> : null}
			{run ? (
				<>
					<h3 className="spaced">Answer</h3>
					<output className="playground-output" aria-live="polite" aria-busy={running} aria-label="Answer">
						{run.text || (running ? "…" : "(no text)")}
					</output>
					{run.streamError ? (
						<Alert title={`The answer stopped: ${run.streamError.code}`}>
							<p>{run.streamError.message}</p>
						</Alert>
					) : null}
					{run.tools.length > 0 ? (
						<>
							<h3>Tool calls</h3>
							<ul>
								{run.tools.map((tool) => (
									<li key={tool.id}>
										<code>{tool.name}</code> {tool.ok === undefined ? "running…" : tool.ok ? "answered" : `failed: ${tool.error ?? "error"}`}
									</li>
								))}
							</ul>
						</>
					) : null}
					<RunMetrics run={run} trace={trace.data} tracePending={Boolean(run.traceId) && trace.isPending} running={running} />
				</>
			) : null}
		</Section>
	);
}

function RunMetrics({
	run,
	trace,
	tracePending,
	running,
}: {
	run: Run;
	trace?: { latencyMs: number; timeToFirstTokenMs: number | null; inputTokens: number; outputTokens: number; costMicroUsd: number; id: string; model: string };
	tracePending: boolean;
	running: boolean;
}) {
	const usage = trace ?? run.usage;
	return (
		<>
			<h3>Tokens, latency and cost</h3>
			<dl className="metrics" aria-busy={running || tracePending}>
				<div>
					<dt>Input tokens</dt>
					<dd>{usage ? usage.inputTokens : "…"}</dd>
				</div>
				<div>
					<dt>Output tokens</dt>
					<dd>{usage ? usage.outputTokens : "…"}</dd>
				</div>
				<div>
					<dt>Latency</dt>
					<dd>{trace ? milliseconds(trace.latencyMs) : run.finishedAt ? milliseconds(run.finishedAt - run.startedAt) : "…"}</dd>
				</div>
				<div>
					<dt>First token after</dt>
					<dd>{trace ? (trace.timeToFirstTokenMs === null ? "none" : milliseconds(trace.timeToFirstTokenMs)) : "…"}</dd>
				</div>
				<div>
					<dt>Cost</dt>
					<dd>{trace ? (trace.costMicroUsd > 0 ? usd.format(trace.costMicroUsd / 1_000_000) : "not priced") : "…"}</dd>
				</div>
			</dl>
			{trace ? (
				<p className="muted small">
					From trace <code>{trace.id}</code> ({trace.model}); cost is estimated from the model's list price{trace.costMicroUsd > 0 ? "" : ", and this model has none on record"}.
					{run.finishReason && run.finishReason !== "stop" ? ` Finished: ${run.finishReason}.` : ""}
				</p>
			) : null}
		</>
	);
}

function VariableInput({ variable, value, onChange, error }: { variable: PromptVariable; value: string; onChange: (value: string) => void; error?: string }) {
	const described = [
		variable.type,
		variable.required ? "required" : "optional",
		variable.default !== undefined ? `default ${String(variable.default)}` : "",
		variable.description ?? "",
	]
		.filter(Boolean)
		.join(" · ");
	if (variable.type === "boolean") {
		return (
			<SelectField label={variable.name} description={described} value={value} onChange={(event) => onChange(event.target.value)} error={error}>
				<option value="">{variable.default !== undefined ? `Default (${String(variable.default)})` : "Not given"}</option>
				<option value="true">true</option>
				<option value="false">false</option>
			</SelectField>
		);
	}
	return (
		<TextField
			label={variable.name}
			description={described}
			value={value}
			inputMode={variable.type === "number" ? "decimal" : undefined}
			onChange={(event) => onChange(event.target.value)}
			error={error}
			required={variable.required}
		/>
	);
}

/** What the person filled in, typed as each variable declares; empty fields are left out (defaults apply). */
function variableValues(variables: PromptVariable[], values: Record<string, string>): Record<string, string | number | boolean> {
	const result: Record<string, string | number | boolean> = {};
	for (const variable of variables) {
		const value = values[variable.name];
		if (value === undefined || value === "") continue;
		if (variable.type === "boolean") result[variable.name] = value === "true";
		else if (variable.type === "number") result[variable.name] = Number.isFinite(Number(value)) ? Number(value) : value;
		else result[variable.name] = value;
	}
	return result;
}
