import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ProviderName } from "../../db/entities";
import type { UpstreamHttp } from "../upstream-http";
import { checkModelsEndpoint } from "../credential-check";
import { ChatCompletionsEndpoint, DEFAULT_BASE_URL } from "./chat-completions";
import { readChunk, readCompletion, ToolCallAssembler } from "./read-completion";
import { ProviderError } from "../provider-error";
import { sanitizeProviderText, StreamTextSanitizer } from "../sanitize-text";
import type { ChatMessage, FinishReason, GenerationOutput, GenerationRequest, ProviderAdapter, ProviderConnection, ProviderStreamEvent, TokenUsage, ToolChoice } from "../types";
import { EMPTY_USAGE } from "../types";
import { abortedFailure, connectionFailure, malformedResponse, providerErrorFromStatus, refusedDestination, truncatedStream } from "../upstream-errors";

/** Our own deadline (config.timeoutMs, at most 600 s) governs; the SDK's must never fire first. */
const SDK_TIMEOUT_MS = 15 * 60_000;

export function normaliseFinishReason(reason: string | null | undefined): FinishReason {
	switch (reason) {
		case "length":
		case "model_length":
			return "length";
		case "tool_calls":
		case "function_call":
			return "tool_calls";
		case "content_filter":
			return "content_filter";
		case "error":
			return "error";
		default:
			return "stop";
	}
}

/** JSON mode, or with a schema OpenAI's structured outputs (`json_schema`). */
function responseFormatOf(request: GenerationRequest) {
	const schema = request.jsonSchema;
	if (!schema) return { type: "json_object" as const };
	return {
		type: "json_schema" as const,
		json_schema: { name: schema.name, schema: schema.schema, ...(schema.description !== undefined ? { description: schema.description } : {}), ...(schema.strict !== undefined ? { strict: schema.strict } : {}) },
	};
}

/** Our messages in Chat Completions' shape: assistant tool calls and `tool` results. */
function toWireMessage(message: ChatMessage): object {
	switch (message.role) {
		case "tool":
			return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
		case "assistant":
			if (!message.toolCalls || message.toolCalls.length === 0) return { role: "assistant", content: message.content };
			return {
				role: "assistant",
				content: message.content || null,
				tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })),
			};
		default:
			return message;
	}
}

function toWireToolChoice(choice: ToolChoice): string | object {
	return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

export interface OpenAiAdapterOptions {
	providerName: Extract<ProviderName, "openai" | "openai-compatible">;
	connection: ProviderConnection;
	upstream: UpstreamHttp;
	/**
	 * OpenAI deprecated `max_tokens` for `max_completion_tokens` (o-series reject the old name),
	 * while most compatible servers (Ollama, vLLM, LM Studio) only know `max_tokens`.
	 */
	maxTokensParameter: "max_completion_tokens" | "max_tokens";
}

/**
 * OpenAI's API; also serves `openai-compatible` endpoints. Chat goes over the wire directly
 * (chat-completions.ts explains why), embeddings through the official SDK.
 */
export function createOpenAiAdapter(options: OpenAiAdapterOptions): ProviderAdapter {
	const { providerName, connection, upstream } = options;
	const chat = new ChatCompletionsEndpoint(upstream, providerName, connection.apiKey, connection.baseUrl);
	// Retries are ours (GenerationDeadline in server/modules/runtime): one loop, one budget, one deadline.
	// upstream.fetch: the SDK's calls share the runtime's pooled connections (upstream-http.ts).
	let client: OpenAI | undefined;
	const sdk = () => (client ??= new OpenAI({ apiKey: connection.apiKey, baseURL: connection.baseUrl ?? undefined, maxRetries: 0, timeout: SDK_TIMEOUT_MS, fetch: upstream.fetch }));

	const toProviderError = (error: unknown, signal?: { aborted: boolean }): ProviderError => {
		if (error instanceof ProviderError) return error;
		const refused = refusedDestination(providerName, error);
		if (refused) return refused;
		if (error instanceof APIUserAbortError || signal?.aborted) return abortedFailure(providerName, error);
		if (error instanceof APIConnectionTimeoutError) return new ProviderError("timeout", providerName, `${providerName} did not answer in time`, { cause: error });
		if (error instanceof APIConnectionError) return connectionFailure(providerName, error);
		if (error instanceof APIError && typeof error.status === "number") {
			return providerErrorFromStatus({
				providerName,
				status: error.status,
				body: error.error ? { error: error.error } : error.message,
				headers: error.headers,
				apiKey: connection.apiKey,
				cause: error,
			});
		}
		// An `error` object inside the SSE stream (status-less APIError) or a broken body mid-read.
		if (error instanceof APIError) return new ProviderError("server_error", providerName, `${providerName} reported an error mid-stream`, { cause: error, retryable: false });
		if (error instanceof SyntaxError) return malformedResponse(providerName, "invalid JSON", error);
		return connectionFailure(providerName, error);
	};

	const body = (request: GenerationRequest) => ({
		model: request.model,
		messages: request.messages.map(toWireMessage),
		...(request.tools && request.tools.length > 0
			? {
					tools: request.tools.map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
					...(request.toolChoice ? { tool_choice: toWireToolChoice(request.toolChoice) } : {}),
				}
			: {}),
		...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
		...(request.maxOutputTokens !== undefined ? { [options.maxTokensParameter]: request.maxOutputTokens } : {}),
		...(request.responseFormat === "json" ? { response_format: responseFormatOf(request) } : {}),
		...(request.stop !== undefined ? { stop: request.stop } : {}),
		...(request.seed !== undefined ? { seed: request.seed } : {}),
		...(request.user !== undefined ? { user: request.user } : {}),
	});

	return {
		providerName,

		async generate(request, signal): Promise<GenerationOutput> {
			const completion = readCompletion(await chat.complete(body(request), signal));
			if (!completion) throw malformedResponse(providerName, "no choices in the completion");
			return {
				content: sanitizeProviderText(completion.content),
				finishReason: normaliseFinishReason(completion.finishReason),
				usage: completion.usage ?? { ...EMPTY_USAGE },
				toolCalls: completion.toolCalls,
			};
		},

		async *stream(request, signal): AsyncIterable<ProviderStreamEvent> {
			let finishReason: FinishReason | undefined;
			let usage: TokenUsage = { ...EMPTY_USAGE };
			const text = new StreamTextSanitizer();
			const toolCalls = new ToolCallAssembler();
			try {
				// include_usage: the final chunk (empty choices) carries the token counts.
				for await (const raw of chat.stream({ ...body(request), stream_options: { include_usage: true } }, signal)) {
					const chunk = readChunk(raw);
					if (!chunk) throw malformedResponse(providerName, "unreadable stream chunk");
					const content = chunk.content ? text.push(chunk.content) : "";
					if (content) yield { type: "delta", content };
					for (const fragment of chunk.toolCalls) toolCalls.push(fragment);
					if (chunk.finishReason) finishReason = normaliseFinishReason(chunk.finishReason);
					if (chunk.usage) usage = chunk.usage;
				}
			} catch (error) {
				throw toProviderError(error, signal);
			}
			// A cut connection can look like an end of stream: a stream is only complete once the
			// provider said why it finished.
			if (signal.aborted) throw abortedFailure(providerName);
			if (!finishReason) throw truncatedStream(providerName);
			const rest = text.flush();
			if (rest) yield { type: "delta", content: rest };
			const calls = toolCalls.finish();
			if (!calls) throw malformedResponse(providerName, "a streamed tool call has no name");
			for (const call of calls) yield { type: "tool_call", ...call };
			yield { type: "usage", ...usage };
			yield { type: "finish", finishReason };
		},

		async embed(texts, model, signal) {
			try {
				const response = await sdk().embeddings.create({ model, input: texts, encoding_format: "float" }, { signal });
				return [...response.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
			} catch (error) {
				throw toProviderError(error, signal);
			}
		},

		verifyCredential(signal) {
			const url = new URL(connection.baseUrl ?? DEFAULT_BASE_URL);
			// Appended to the path, so a gateway's query (Azure's ?api-version=) is kept.
			url.pathname = `${url.pathname.replace(/\/+$/, "")}/models`;
			return checkModelsEndpoint(upstream, { providerName, url, apiKey: connection.apiKey, signal });
		},
	};
}
