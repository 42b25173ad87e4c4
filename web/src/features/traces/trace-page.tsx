import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { roleAtLeast, useWorkspace } from "../../app/workspace-context";
import { Alert, ErrorAlert } from "../../ui/alert";
import { Badge } from "../../ui/badge";
import { formatDateTime } from "../../ui/format";
import { PageHeader, Section } from "../../ui/page";
import { LoadingState } from "../../ui/spinner";
import { assistantListQuery, environmentsQuery, traceQuery } from "../assistants/assistant-queries";
import { CALLER_LABELS, formatCost, formatLatency, KIND_LABELS, type Trace } from "./trace-queries";

interface SentMessage {
	role: string;
	content: string;
}

/** The messages of a trace's input ({messages, config}), whatever shape a provider was sent. */
function sentMessages(input: unknown): SentMessage[] {
	const messages = (input as { messages?: unknown } | null)?.messages;
	if (!Array.isArray(messages)) return [];
	return messages.map((message: { role?: unknown; content?: unknown }) => ({
		role: typeof message.role === "string" ? message.role : "unknown",
		content: typeof message.content === "string" ? message.content : JSON.stringify(message.content, null, 2),
	}));
}

/** What each message was, in words: the assistant's prompt, what retrieval added, the user's turn. */
function messageLabel(message: SentMessage, index: number): string {
	if (message.role === "system") return message.content.startsWith("Reference material retrieved") ? "Retrieved knowledge" : index === 0 ? "System prompt" : "System message";
	if (message.role === "user") return "Input";
	if (message.role === "assistant") return "Earlier answer";
	return message.role;
}

/** One generation in full: the messages sent, the output, and what it cost; "open in playground" reruns its input against the draft. */
export function TracePage() {
	const { workspace, role } = useWorkspace();
	const { traceId } = useParams({ strict: false }) as { traceId: string };
	const trace = useQuery(traceQuery(workspace.id, traceId));
	const assistants = useQuery(assistantListQuery(workspace.id, true));
	const environments = useQuery(environmentsQuery(workspace.id));
	if (trace.isPending) return <LoadingState label="Loading the trace" />;
	if (trace.error) return <ErrorAlert error={trace.error} />;
	const data: Trace = trace.data;
	const assistant = assistants.data?.find((candidate) => candidate.id === data.assistantId);
	const environment = environments.data?.find((candidate) => candidate.id === data.environmentId);
	const messages = sentMessages(data.input);
	const lastInput = [...messages].reverse().find((message) => message.role === "user")?.content;
	return (
		<>
			<PageHeader
				title="Trace"
				description={
					<>
						{formatDateTime(data.createdAt)} · <code>{data.id}</code>
					</>
				}
				actions={
					assistant && lastInput !== undefined && roleAtLeast(role, "member") ? (
						<Link className="button button-secondary" to="/workspaces/$workspaceId/assistants/$slug" params={{ workspaceId: workspace.id, slug: assistant.slug }} search={{ input: lastInput }}>
							Open in playground
						</Link>
					) : null
				}
			/>
			<p>
				<Link to="/workspaces/$workspaceId/traces" params={{ workspaceId: workspace.id }} search={{}}>
					All traces
				</Link>
			</p>
			{data.errorCode ? (
				<Alert title={`Failed: ${data.errorCode}`}>
					<p>{data.errorMessage ?? "No message was recorded."}</p>
				</Alert>
			) : null}
			<Section title="Summary">
				<dl className="metrics trace-metrics">
					<div>
						<dt>Assistant</dt>
						<dd>{assistant ? `${assistant.name}${environment ? ` (${environment.slug})` : ""}` : "none"}</dd>
					</div>
					<div>
						<dt>Kind</dt>
						<dd>{KIND_LABELS[data.kind] ?? data.kind}</dd>
					</div>
					<div>
						<dt>Caller</dt>
						<dd>
							{CALLER_LABELS[data.principalType] ?? data.principalType} <code className="break">{data.principalId ?? ""}</code>
						</dd>
					</div>
					<div>
						<dt>Provider and model</dt>
						<dd>
							{data.provider}/{data.model}
						</dd>
					</div>
					<div>
						<dt>Latency</dt>
						<dd>{formatLatency(data.latencyMs)}</dd>
					</div>
					<div>
						<dt>Time to first token</dt>
						<dd>{data.streamed ? formatLatency(data.timeToFirstTokenMs) : "not streamed"}</dd>
					</div>
					<div>
						<dt>Input tokens</dt>
						<dd>{data.inputTokens}</dd>
					</div>
					<div>
						<dt>Output tokens</dt>
						<dd>{data.outputTokens}</dd>
					</div>
					<div>
						<dt>Cost</dt>
						<dd>{formatCost(data.costMicroUsd)}</dd>
					</div>
					<div>
						<dt>Finish reason</dt>
						<dd>{data.finishReason ?? "–"}</dd>
					</div>
					<div>
						<dt>Outcome</dt>
						<dd>{data.errorCode ? <Badge tone="danger">Failed</Badge> : <Badge tone="success">Succeeded</Badge>}</dd>
					</div>
				</dl>
			</Section>
			<Section title="Messages sent">
				{data.input === null ? <p className="muted">This workspace does not store the content of generations.</p> : null}
				{messages.map((message, index) => (
					<figure key={index} className="message card">
						<figcaption>
							<strong>{messageLabel(message, index)}</strong> <span className="muted small">({message.role})</span>
						</figcaption>
						<pre className="message-text" tabIndex={0} aria-label={messageLabel(message, index)}>
							{message.content}
						</pre>
					</figure>
				))}
			</Section>
			<Section title="Output">
				{data.output ? (
					<pre className="message-text card" tabIndex={0} aria-label="Output">
						{data.output}
					</pre>
				) : (
					<p className="muted">{data.input === null ? "Not stored." : "No output."}</p>
				)}
			</Section>
		</>
	);
}
