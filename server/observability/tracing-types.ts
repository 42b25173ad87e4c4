import type { IncomingMessage } from "node:http";

/** OTEL_EXPORTER_OTLP_ENDPOINT and friends (server/config.ts); tracing is off when absent. */
export interface TracingOptions {
	/** Where spans go (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
	tracesEndpoint: string;
	/** OTEL_EXPORTER_OTLP_HEADERS (`key=value,key=value`): an API key for a hosted collector. */
	headers: Record<string, string>;
	/** OTEL_SERVICE_NAME. */
	serviceName: string;
}

/** A request's span, started when the request arrives. */
export interface RequestTrace {
	end(status: number): void;
}

/** One call to the provider within a generation (a retry is another attempt), as its child span tells it. */
export interface ProviderAttempt {
	/** 1 for the first call of the generation, counting on across retries and tool-loop steps. */
	attempt: number;
	/** Epoch milliseconds. */
	startedAt: number;
	endedAt: number;
	/** Null: the attempt succeeded. */
	errorKind: string | null;
	retryable: boolean;
	/** The provider's HTTP status, when it answered with one. */
	httpStatus?: number;
}

/** What a finished generation tells its span (never its messages or output). */
export interface GenerationSpanInput {
	traceId: string;
	provider: string;
	model: string;
	kind: string;
	streamed: boolean;
	startedAt: number;
	latencyMs: number;
	inputTokens: number;
	outputTokens: number;
	finishReason: string | null;
	errorKind: string | null;
	attempts: number;
}

/** A tool call of an assistant's tool loop: its name (the version's configuration, not the model's text) and kind. */
export interface ToolSpanInput {
	name: string;
	kind: string;
	callId: string;
}

/**
 * A generation's span while it runs: tool calls run inside child spans of it (so the searches they
 * cause are theirs); each provider attempt, told once it ended, becomes a child span with its times.
 */
export interface GenerationTrace {
	attempt(attempt: ProviderAttempt): void;
	runTool<T extends { ok: boolean }>(tool: ToolSpanInput, work: () => Promise<T>): Promise<T>;
	/** Ends the span with the generation's figures; the trace writer calls it with the outcome. */
	end(generation: GenerationSpanInput): void;
}

/** A knowledge search (the search endpoint, attached knowledge, the knowledge_search tool). */
export interface SearchSpanInput {
	sourceId: string;
	topK: number;
}

/** An ingestion job as its worker runs it. */
export interface JobSpanInput {
	queue: string;
	jobId: string;
	documentId: string;
	attempt: number;
	/** The W3C traceparent of the request that enqueued the job, when it was traced: a span link. */
	traceparent?: string;
}

/**
 * OpenTelemetry tracing, loaded (server/observability/tracing.ts, with the @opentelemetry packages)
 * only when an OTLP endpoint is configured; otherwise nothing of it exists and the hot path tests one
 * null. No span carries a prompt, an output, a tool's arguments or results, or a search query.
 */
export interface Tracing {
	/** A server span for the request, continuing its `traceparent` when it has one. */
	startRequest(request: IncomingMessage, route: string): RequestTrace;
	/** Runs `work` with the request's span as the parent of the spans it causes (generations). */
	run<T>(trace: RequestTrace, work: () => T): T;
	/** A generation's span from now, a child of the current span (the request's) or a root span outside one. */
	startGeneration(generation: { provider: string; model: string; startedAt: number }): GenerationTrace;
	/** A span around one knowledge search, a child of the current span; `work` resolves with the results. */
	runSearch<T extends readonly unknown[]>(search: SearchSpanInput, work: () => Promise<T>): Promise<T>;
	/** The current span as a W3C traceparent, for work that outlives it (a queued job); undefined outside any span. */
	traceparent(): string | undefined;
	/** A root span for a job's run, linked to the span that enqueued it. */
	runJob<T>(job: JobSpanInput, work: () => Promise<T>): Promise<T>;
	flush(): Promise<void>;
	close(): Promise<void>;
}
