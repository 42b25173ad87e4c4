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

/**
 * OpenTelemetry tracing, loaded (server/observability/tracing.ts, with the @opentelemetry packages)
 * only when an OTLP endpoint is configured; otherwise nothing of it exists and the hot path tests one
 * null.
 */
export interface Tracing {
	/** A server span for the request, continuing its `traceparent` when it has one. */
	startRequest(request: IncomingMessage, route: string): RequestTrace;
	/** Runs `work` with the request's span as the parent of the spans it causes (generations). */
	run<T>(trace: RequestTrace, work: () => T): T;
	/** A generation's span, a child of the current request's (or a root span outside one). */
	recordGeneration(generation: GenerationSpanInput): void;
	flush(): Promise<void>;
	close(): Promise<void>;
}
