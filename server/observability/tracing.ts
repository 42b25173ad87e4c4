import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import {
	type Attributes,
	type Context,
	defaultTextMapGetter,
	defaultTextMapSetter,
	isSpanContextValid,
	type Link,
	ROOT_CONTEXT,
	type Span,
	SpanKind,
	SpanStatusCode,
	trace,
	type TextMapGetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { GenerationSpanInput, GenerationTrace, ProviderAttempt, RequestTrace, Tracing, TracingOptions } from "./tracing-types";

const HEADER_GETTER: TextMapGetter<IncomingMessage["headers"]> = {
	keys: (headers) => Object.keys(headers),
	get: (headers, key) => headers[key],
};

interface OpenRequestTrace extends RequestTrace {
	context: Context;
}

/** Ends `span` once `work` settles, as an error when it throws; `finish` adds what the result tells. */
function settle<T>(span: Span, work: Promise<T>, finish?: (result: T) => void): Promise<T> {
	return work.then(
		(result) => {
			finish?.(result);
			span.end();
			return result;
		},
		(error: unknown) => {
			span.setAttribute("error.type", error instanceof Error ? error.name : "error");
			span.setStatus({ code: SpanStatusCode.ERROR });
			span.end();
			throw error;
		},
	);
}

/** The attributes every span of a generation shares (GenAI semantic conventions). */
function genAiAttributes(provider: string, model: string): Attributes {
	return { "gen_ai.operation.name": "chat", "gen_ai.system": provider, "gen_ai.provider.name": provider, "gen_ai.request.model": model };
}

/**
 * Spans over OTLP/HTTP (JSON) through a tracer provider of this platform's own: nothing is
 * registered globally, so two platforms in one process export apart. A request's span continues an
 * incoming W3C `traceparent`; generations and knowledge searches are its children, a generation's
 * provider attempts and tool calls are the generation's, named and attributed after the GenAI
 * semantic conventions (gen_ai.*); an ingestion job's span links to the request that queued it.
 * Spans never carry prompts, outputs, tool arguments or search queries, whatever the workspace's
 * trace-content setting: only what the metrics show, plus ids (the platform's trace id, whose stored
 * trace holds the content when the workspace keeps it).
 */
export function startTracing(options: TracingOptions): Tracing {
	const tracerProvider = new BasicTracerProvider({
		resource: resourceFromAttributes({ "service.name": options.serviceName }),
		spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.tracesEndpoint, headers: options.headers }))],
	});
	const tracer = tracerProvider.getTracer("ai-app-platform");
	const propagator = new W3CTraceContextPropagator();
	const current = new AsyncLocalStorage<Context>();

	const parentOfNew = () => current.getStore() ?? ROOT_CONTEXT;

	/** Provider attempts are known with their times only as they end: emitted at once, as children of the generation's span. */
	const emitAttempt = (parent: Context, provider: string, model: string, attempt: ProviderAttempt) => {
		const span = tracer.startSpan(
			`chat ${model} attempt ${attempt.attempt}`,
			{
				kind: SpanKind.CLIENT,
				startTime: attempt.startedAt,
				attributes: {
					...genAiAttributes(provider, model),
					"platform.provider.attempt": attempt.attempt,
					"platform.provider.outcome": attempt.errorKind === null ? "success" : "failure",
					"platform.provider.retryable": attempt.retryable,
					...(attempt.errorKind === null ? {} : { "error.type": attempt.errorKind }),
					...(attempt.httpStatus === undefined ? {} : { "http.response.status_code": attempt.httpStatus }),
				},
			},
			parent,
		);
		if (attempt.errorKind !== null) span.setStatus({ code: SpanStatusCode.ERROR });
		span.end(attempt.endedAt);
	};

	return {
		startRequest(request, route) {
			const parent = propagator.extract(ROOT_CONTEXT, request.headers, HEADER_GETTER);
			const method = request.method ?? "GET";
			const span: Span = tracer.startSpan(
				`${method} ${route}`,
				{ kind: SpanKind.SERVER, attributes: { "http.request.method": method, "http.route": route } },
				parent,
			);
			const opened: OpenRequestTrace = {
				context: trace.setSpan(parent, span),
				end(status) {
					span.setAttribute("http.response.status_code", status);
					if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
					span.end();
				},
			};
			return opened;
		},
		run(requestTrace, work) {
			return current.run((requestTrace as OpenRequestTrace).context, work);
		},
		startGeneration({ provider, model, startedAt }): GenerationTrace {
			const parent = parentOfNew();
			const span = tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, startTime: startedAt, attributes: genAiAttributes(provider, model) }, parent);
			const context = trace.setSpan(parent, span);
			return {
				attempt: (attempt) => emitAttempt(context, provider, model, attempt),
				runTool(tool, work) {
					const toolSpan = tracer.startSpan(
						`execute_tool ${tool.name}`,
						{
							kind: SpanKind.INTERNAL,
							attributes: {
								"gen_ai.operation.name": "execute_tool",
								"gen_ai.system": provider,
								"gen_ai.tool.name": tool.name,
								"gen_ai.tool.type": "function",
								"gen_ai.tool.call.id": tool.callId,
								"platform.tool.kind": tool.kind,
							},
						},
						context,
					);
					return settle(toolSpan, current.run(trace.setSpan(context, toolSpan), work), (result) => {
						toolSpan.setAttribute("platform.tool.outcome", result.ok ? "success" : "failure");
						if (!result.ok) toolSpan.setStatus({ code: SpanStatusCode.ERROR });
					});
				},
				end(generation: GenerationSpanInput) {
					span.setAttributes({
						"gen_ai.response.model": generation.model,
						"gen_ai.usage.input_tokens": generation.inputTokens,
						"gen_ai.usage.output_tokens": generation.outputTokens,
						...(generation.finishReason ? { "gen_ai.response.finish_reasons": [generation.finishReason] } : {}),
						...(generation.errorKind ? { "error.type": generation.errorKind } : {}),
						"platform.trace_id": generation.traceId,
						"platform.generation.kind": generation.kind,
						"platform.generation.streamed": generation.streamed,
						"platform.generation.attempts": generation.attempts,
					});
					if (generation.errorKind) span.setStatus({ code: SpanStatusCode.ERROR });
					span.end(generation.startedAt + generation.latencyMs);
				},
			};
		},
		runSearch(search, work) {
			const parent = parentOfNew();
			const span = tracer.startSpan(
				"knowledge.search",
				{ kind: SpanKind.INTERNAL, attributes: { "platform.knowledge.source_id": search.sourceId, "platform.knowledge.top_k": search.topK } },
				parent,
			);
			return settle(span, current.run(trace.setSpan(parent, span), work), (results) => span.setAttribute("platform.knowledge.result_count", results.length));
		},
		traceparent() {
			const context = current.getStore();
			if (!context) return undefined;
			const carrier: Record<string, string> = {};
			propagator.inject(context, carrier, defaultTextMapSetter);
			return carrier.traceparent;
		},
		runJob(job, work) {
			const links: Link[] = [];
			if (job.traceparent) {
				const enqueuer = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { traceparent: job.traceparent }, defaultTextMapGetter));
				if (enqueuer && isSpanContextValid(enqueuer)) links.push({ context: enqueuer });
			}
			// A root span: the job runs in a trace of its own, linked (not parented) to the request that queued it.
			const span = tracer.startSpan(
				`process ${job.queue}`,
				{
					kind: SpanKind.CONSUMER,
					root: true,
					links,
					attributes: {
						"messaging.system": "pg-boss",
						"messaging.operation.type": "process",
						"messaging.destination.name": job.queue,
						"messaging.message.id": job.jobId,
						"platform.document.id": job.documentId,
						"platform.ingestion.attempt": job.attempt,
					},
				},
				ROOT_CONTEXT,
			);
			return settle(span, current.run(trace.setSpan(ROOT_CONTEXT, span), work), (outcome) => {
				if (typeof outcome === "string") span.setAttribute("platform.job.outcome", outcome);
			});
		},
		flush: () => tracerProvider.forceFlush(),
		close: () => tracerProvider.shutdown(),
	};
}
