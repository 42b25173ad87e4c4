import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type TextMapGetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { GenerationSpanInput, RequestTrace, Tracing, TracingOptions } from "./tracing-types";

const HEADER_GETTER: TextMapGetter<IncomingMessage["headers"]> = {
	keys: (headers) => Object.keys(headers),
	get: (headers, key) => headers[key],
};

interface OpenRequestTrace extends RequestTrace {
	context: Context;
}

/**
 * Spans over OTLP/HTTP (JSON) through a tracer provider of this platform's own: nothing is
 * registered globally, so two platforms in one process export apart. A request's span continues an
 * incoming W3C `traceparent`; generations are its children, named and attributed after the GenAI
 * semantic conventions (gen_ai.*). Spans never carry prompts or outputs: only what the metrics show,
 * plus the platform's trace id, whose stored trace holds the content when the workspace keeps it.
 */
export function startTracing(options: TracingOptions): Tracing {
	const provider = new BasicTracerProvider({
		resource: resourceFromAttributes({ "service.name": options.serviceName }),
		spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.tracesEndpoint, headers: options.headers }))],
	});
	const tracer = provider.getTracer("ai-app-platform");
	const propagator = new W3CTraceContextPropagator();
	const current = new AsyncLocalStorage<Context>();

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
		recordGeneration(generation: GenerationSpanInput) {
			const span = tracer.startSpan(
				`chat ${generation.model}`,
				{
					kind: SpanKind.CLIENT,
					startTime: generation.startedAt,
					attributes: {
						"gen_ai.operation.name": "chat",
						"gen_ai.system": generation.provider,
						"gen_ai.provider.name": generation.provider,
						"gen_ai.request.model": generation.model,
						"gen_ai.response.model": generation.model,
						"gen_ai.usage.input_tokens": generation.inputTokens,
						"gen_ai.usage.output_tokens": generation.outputTokens,
						...(generation.finishReason ? { "gen_ai.response.finish_reasons": [generation.finishReason] } : {}),
						...(generation.errorKind ? { "error.type": generation.errorKind } : {}),
						"platform.trace_id": generation.traceId,
						"platform.generation.kind": generation.kind,
						"platform.generation.streamed": generation.streamed,
						"platform.generation.attempts": generation.attempts,
					},
				},
				current.getStore() ?? ROOT_CONTEXT,
			);
			if (generation.errorKind) span.setStatus({ code: SpanStatusCode.ERROR });
			span.end(generation.startedAt + generation.latencyMs);
		},
		flush: () => provider.forceFlush(),
		close: () => provider.shutdown(),
	};
}
