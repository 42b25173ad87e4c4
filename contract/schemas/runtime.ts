import { z } from "../zod";

export const PROVIDER_NAMES = ["openai", "mistral", "openai-compatible"] as const;
export const ZProviderName = z.enum(PROVIDER_NAMES).openapi("ProviderName", {
	description: "`openai-compatible` is any endpoint speaking OpenAI's chat API (Ollama, vLLM, LM Studio, Together, Groq, gateways) at the base URL stored with the credential.",
});

export const ZMessage = z
	.object({
		role: z.enum(["system", "user", "assistant"]),
		content: z.string().max(1_000_000),
	})
	.strict()
	.openapi("Message", { example: { role: "user", content: "Say hello." } });
export type TMessage = z.infer<typeof ZMessage>;

export const ZUsage = z
	.object({
		inputTokens: z.number().int().nonnegative(),
		outputTokens: z.number().int().nonnegative(),
		totalTokens: z.number().int().nonnegative(),
	})
	.openapi("Usage", { example: { inputTokens: 12, outputTokens: 5, totalTokens: 17 } });
export type TUsage = z.infer<typeof ZUsage>;

export const FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter", "error"] as const;
export const ZFinishReason = z.enum(FINISH_REASONS).openapi("FinishReason");
export type TFinishReason = z.infer<typeof ZFinishReason>;

export const ZAssistantMessage = z
	.object({ role: z.literal("assistant"), content: z.string() })
	.openapi("AssistantMessage", { example: { role: "assistant", content: "Hello!" } });

/**
 * Headers of a generation's answer that name what served it. Set once the generation reached its
 * provider (from then on it is traced, failed or not): on the JSON answer, when a stream opens, and
 * on an error answered after that point.
 */
export const GENERATION_HEADERS = {
	traceId: "X-Trace-Id",
	assistantVersion: "X-Assistant-Version",
	assistantEnvironment: "X-Assistant-Environment",
} as const;

export const ZTraceId = z.string().openapi({
	description: "The trace recording this generation (`trace_...`); the same id as the `X-Trace-Id` header. Read it with the MCP tool `get_trace` or in the dashboard's traces.",
	example: "trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D",
});

export const ZServedAssistant = z
	.object({
		slug: z.string().openapi({ description: "The assistant's slug, as called." }),
		version: z.number().int().min(1).openapi({ description: "The published version that answered (also the `X-Assistant-Version` header)." }),
		environment: z.string().openapi({ description: "The environment whose deployment served it (also the `X-Assistant-Environment` header)." }),
	})
	.openapi("ServedAssistant", {
		description: "Which published version of the assistant answered, and in which environment.",
		example: { slug: "support-bot", version: 3, environment: "production" },
	});
export type TServedAssistant = z.infer<typeof ZServedAssistant>;

export const ZToolCallOutcome = z
	.object({
		id: z.string().openapi({ description: "The call's id, as the model named it." }),
		name: z.string().openapi({ description: "The tool called (an MCP server's tools as `<name>_<tool>`)." }),
		arguments: z.unknown().openapi({ description: "The arguments the model wrote: a JSON object, or its text when it was not one; workspace secrets redacted." }),
		ok: z.boolean().openapi({ description: "Whether the tool answered; a failure went back to the model as an error result." }),
		error: z.string().optional().openapi({ description: "Why it failed (invalid arguments, a timeout, an HTTP error, an address refused by the egress policy)." }),
		latencyMs: z.number().int().openapi({ description: "How long the call took." }),
	})
	.openapi("ToolCallOutcome", { description: "A tool call the server ran for the model." });

export const ZGenerationResult = z
	.object({
		message: ZAssistantMessage,
		finishReason: ZFinishReason,
		usage: ZUsage.openapi({ description: "Tokens of every model call of the generation, summed (a tool loop makes several)." }),
		traceId: ZTraceId,
		toolCalls: z
			.array(ZToolCallOutcome)
			.optional()
			.openapi({ description: "With an assistant's tools: every tool call run on the server, in order. `finishReason: tool_calls` means the step budget (`maxToolSteps`) was spent." }),
	})
	.openapi("GenerationResult", {
		example: {
			message: { role: "assistant", content: "Hello!" },
			finishReason: "stop",
			usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
			traceId: "trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D",
		},
	});
export type TGenerationResult = z.infer<typeof ZGenerationResult>;

export const ZAssistantGenerationResult = ZGenerationResult.extend({ assistant: ZServedAssistant }).openapi("AssistantGenerationResult", {
	description: "A deployed assistant's answer: the generation result, and which published version answered.",
	example: {
		message: { role: "assistant", content: "Your order left our warehouse yesterday." },
		finishReason: "stop",
		usage: { inputTokens: 42, outputTokens: 9, totalTokens: 51 },
		traceId: "trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D",
		assistant: { slug: "support-bot", version: 3, environment: "production" },
	},
});
export type TAssistantGenerationResult = z.infer<typeof ZAssistantGenerationResult>;

export const GENERATION_DEFAULTS = { timeoutMs: 60_000, maxRetries: 2 } as const;

export const ZGenerationConfig = z
	.object({
		temperature: z.number().min(0).max(2).optional().openapi({ description: "Sampling temperature, 0 to 2. Default: the provider's." }),
		maxOutputTokens: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "Cap on generated tokens. Default: the provider's." }),
		responseFormat: z.enum(["text", "json"]).optional().openapi({ description: "`json` switches on the provider's JSON mode. Default `text`." }),
		timeoutMs: z
			.number()
			.int()
			.min(1)
			.max(600_000)
			.optional()
			.openapi({ description: `Whole-generation timeout in milliseconds, retries included; aborts the upstream request. Default ${GENERATION_DEFAULTS.timeoutMs}.` }),
		maxRetries: z
			.number()
			.int()
			.min(0)
			.max(10)
			.optional()
			.openapi({
				description: `Retries of transient provider failures (429, 5xx, connection reset) with jittered backoff; 0 means exactly one upstream attempt. Never retried once output has been streamed. Default ${GENERATION_DEFAULTS.maxRetries}.`,
			}),
	})
	.strict()
	.openapi("GenerationConfig");
export type TGenerationConfig = z.infer<typeof ZGenerationConfig>;

export const ZExecuteRequest = z
	.object({
		providerName: ZProviderName,
		model: z.string().min(1).max(200).openapi({ example: "gpt-4o-mini" }),
		messages: z.array(ZMessage).min(1, "At least one message is required").max(1000),
		config: ZGenerationConfig.default({}),
	})
	.strict()
	.openapi("ExecuteRequest", {
		example: { providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello." }], config: { temperature: 0.2 } },
	});
export type TExecuteRequest = z.infer<typeof ZExecuteRequest>;

export const ZSlug = z
	.string()
	.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "Lowercase letters, digits and dashes, at most 63 characters")
	.openapi({ example: "support-bot" });

export const ZVariableValue = z.union([z.string(), z.number(), z.boolean()]);

export const ZAssistantRunInput = z
	.object({
		input: z.string().max(1_000_000).openapi({ description: "Runtime input (the user's turn)." }),
		variables: z.record(ZVariableValue).optional().openapi({
			description:
				"Values for the version's declared prompt variables, by name: each a string, number or boolean of the variable's declared type. Omitted optional ones take their default (or render empty); an undeclared name, a missing required one or a value of another type is 400 VALIDATION_ERROR on `variables.<name>`.",
		}),
		environment: ZSlug.optional().openapi({ description: "Deployment environment slug; default `production`.", example: "production" }),
	})
	.strict()
	.openapi("AssistantRunInput", { example: { input: "Where is my order?", variables: { customerName: "Ada" } } });
export type TAssistantRunInput = z.infer<typeof ZAssistantRunInput>;

export const ZStreamError = z
	.object({
		code: z.string().openapi({ description: "A code of the error catalog (see ErrorEnvelope), e.g. `INTERNAL_ERROR` when the provider failed, `RATE_LIMITED` when it rate-limited." }),
		message: z.string().openapi({ description: "Human-readable; names the provider and what failed." }),
		retryable: z.boolean().openapi({ description: "Whether sending the same request again may succeed." }),
		providerName: z.string().optional().openapi({ description: "The provider that failed, when one did." }),
	})
	.openapi("StreamError", { description: "Data of the terminal `error` event." });
export type TStreamError = z.infer<typeof ZStreamError>;

export const ZStreamDelta = z.object({ content: z.string().openapi({ description: "The next piece of generated text; concatenate in order." }) }).openapi("StreamDelta", {
	description: "Data of a `delta` event.",
});
export const ZStreamDone = z
	.object({
		finishReason: ZFinishReason,
		traceId: ZTraceId,
		assistant: ZServedAssistant.optional(),
	})
	.openapi("StreamDone", { description: "Data of the `done` event: how the generation finished, its trace and, on a deployed assistant's stream, the version that answered (`assistant`)." });

export const ZStreamToolCall = z
	.object({
		id: z.string(),
		name: z.string(),
		arguments: z.unknown().openapi({ description: "The arguments the model wrote: a JSON object, or its text when it was not one." }),
	})
	.openapi("StreamToolCall", { description: "Data of a `tool_call` event: a call the model made, about to run on the server." });
export const ZStreamToolResult = z
	.object({
		id: z.string(),
		name: z.string(),
		ok: z.boolean(),
		error: z.string().optional().openapi({ description: "Why the call failed; the model got it as the call's result." }),
	})
	.openapi("StreamToolResult", { description: "Data of a `tool_result` event: how a call ended (its result goes to the model, not the stream)." });

/** One frame of the stream: `event: <name>` and `data: <JSON>`, the data's schema named by the event. */
function streamEvent<TData extends z.ZodTypeAny>(name: string, component: string, data: TData, description: string) {
	return z.object({ event: z.literal(name), data }).openapi(component, { description });
}

export const SSE_DESCRIPTION = [
	"Server-Sent Events. Each frame is `event: <name>` and `data: <json>`; this schema describes one frame, as `{event, data}` (the data line holds `data` as JSON).",
	"Sequence: zero or more `delta` (StreamDelta), then `usage` (Usage), then `done` (StreamDone);",
	"with an assistant's tools, `tool_call` (StreamToolCall) and `tool_result` (StreamToolResult) events come between deltas, one pair per call the server runs, and `usage` sums every model call;",
	"or a terminal `error` (StreamError) after which the stream ends.",
	"Comment lines (`: keep-alive`) are sent during long silences. Clients ignore unknown event names and unknown fields.",
	"The response headers name the trace (`X-Trace-Id`) and, for a deployed assistant, the version and environment that answered (`X-Assistant-Version`, `X-Assistant-Environment`); `done` repeats them.",
	"Abort the request to cancel the generation; the upstream provider request is cancelled at once.",
	'Example:\n\n```\nevent: delta\ndata: {"content":"Hel"}\n\nevent: delta\ndata: {"content":"lo"}\n\nevent: usage\ndata: {"inputTokens":5,"outputTokens":2,"totalTokens":7}\n\nevent: done\ndata: {"finishReason":"stop","traceId":"trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D"}\n```',
].join(" ");

export const ZSseStream = z
	.discriminatedUnion("event", [
		streamEvent("delta", "DeltaEvent", ZStreamDelta, "A chunk of generated text."),
		streamEvent("tool_call", "ToolCallEvent", ZStreamToolCall, "A call the model made to one of the assistant's tools, run on the server."),
		streamEvent("tool_result", "ToolResultEvent", ZStreamToolResult, "How that call ended."),
		streamEvent("usage", "UsageEvent", ZUsage, "Final token accounting, after the last delta."),
		streamEvent("done", "DoneEvent", ZStreamDone, "The generation finished; the stream ends."),
		streamEvent("error", "ErrorEvent", ZStreamError, "A provider failure after the stream opened; the stream ends."),
	])
	.openapi("EventStream", { description: SSE_DESCRIPTION });
