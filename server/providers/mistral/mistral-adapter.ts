import { HTTPClient, Mistral } from "@mistralai/mistralai";
import type { ChatCompletionRequest, ContentChunk, ToolCall as MistralToolCall, ToolChoiceEnum } from "@mistralai/mistralai/models/components";
import { ConnectionError, MistralError, RequestAbortedError, RequestTimeoutError, ResponseValidationError, SDKValidationError } from "@mistralai/mistralai/models/errors";
import { checkModelsEndpoint } from "../credential-check";
import { normaliseFinishReason } from "../openai/openai-adapter";
import { ToolCallAssembler } from "../openai/read-completion";
import { ProviderError } from "../provider-error";
import { sanitizeProviderText, StreamTextSanitizer } from "../sanitize-text";
import type { ChatMessage, FinishReason, GenerationOutput, GenerationRequest, ProviderAdapter, ProviderConnection, ProviderStreamEvent, TokenUsage, ToolCall, ToolChoice } from "../types";
import { EMPTY_USAGE } from "../types";
import type { UpstreamHttp } from "../upstream-http";
import { abortedFailure, connectionFailure, malformedResponse, providerErrorFromStatus, refusedDestination, truncatedStream } from "../upstream-errors";

const PROVIDER_NAME = "mistral";
/** Our deadline governs (config.timeoutMs, at most 600 s); the SDK's own must never fire first. */
const SDK_TIMEOUT_MS = 15 * 60_000;
const NO_RETRIES = { strategy: "none" } as const;
const DEFAULT_SERVER_URL = "https://api.mistral.ai";

/**
 * The SDK appends `/v1/...` to its server URL, whereas OpenAI-style base URLs end in `/v1`.
 * Accept both spellings in the stored credential so operators need not know the difference.
 */
function mistralServerUrl(baseUrl: string | null): string | undefined {
	if (!baseUrl) return undefined;
	return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

function textOf(content: string | ContentChunk[] | null | undefined): string {
	if (!content) return "";
	if (typeof content === "string") return content;
	return content.map((chunk) => (chunk.type === "text" ? chunk.text : "")).join("");
}

function toUsage(usage: { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined | null): TokenUsage {
	if (!usage) return { ...EMPTY_USAGE };
	const inputTokens = usage.promptTokens ?? 0;
	const outputTokens = usage.completionTokens ?? 0;
	return { inputTokens, outputTokens, totalTokens: usage.totalTokens ?? inputTokens + outputTokens };
}

/** JSON mode, or with a schema Mistral's structured outputs (`json_schema`; the SDK names the schema `schemaDefinition`). */
function responseFormatOf(request: GenerationRequest) {
	const schema = request.jsonSchema;
	if (!schema) return { type: "json_object" as const };
	return {
		type: "json_schema" as const,
		jsonSchema: { name: schema.name, schemaDefinition: schema.schema, ...(schema.description !== undefined ? { description: schema.description } : {}), ...(schema.strict !== undefined ? { strict: schema.strict } : {}) },
	};
}

function toMistralMessage(message: ChatMessage): ChatCompletionRequest["messages"][number] {
	switch (message.role) {
		case "tool":
			return { role: "tool", toolCallId: message.toolCallId, name: message.name, content: message.content };
		case "assistant":
			if (!message.toolCalls || message.toolCalls.length === 0) return { role: "assistant", content: message.content };
			return {
				role: "assistant",
				content: message.content || null,
				toolCalls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })),
			};
		default:
			return message;
	}
}

/** Mistral's `any` is OpenAI's `required`; both spellings are accepted by its API. */
function toMistralToolChoice(choice: ToolChoice): NonNullable<ChatCompletionRequest["toolChoice"]> {
	if (typeof choice !== "string") return { type: "function", function: { name: choice.name } };
	return (choice === "required" ? "any" : choice) satisfies ToolChoiceEnum;
}

/** Mistral sends arguments as JSON text, or (in some SDK paths) already parsed: both become text. */
function argumentsText(value: MistralToolCall["function"]["arguments"] | undefined): string {
	if (value === undefined) return "";
	return typeof value === "string" ? value : JSON.stringify(value);
}

function toToolCalls(calls: MistralToolCall[] | null | undefined): ToolCall[] {
	return (calls ?? []).map((call, index) => ({ id: call.id || `call_${index}`, name: call.function.name, arguments: argumentsText(call.function.arguments) }));
}

/**
 * Mistral through `@mistralai/mistralai`. Its SDK supports everything we need: `serverURL` for a
 * custom base URL, `retryConfig: {strategy: "none"}` (our retry loop is the only one), and
 * `signal` per call for abort, which also cancels a stream being read. Its requests go through
 * `upstream.fetch`, on the egress dispatcher like every provider call (the base URL is a tenant's).
 */
export function createMistralAdapter(connection: ProviderConnection, upstream: UpstreamHttp): ProviderAdapter {
	const client = new Mistral({
		apiKey: connection.apiKey,
		serverURL: mistralServerUrl(connection.baseUrl),
		retryConfig: NO_RETRIES,
		timeoutMs: SDK_TIMEOUT_MS,
		httpClient: new HTTPClient({ fetcher: (input, init) => upstream.fetch(input, init) }),
	});

	const toProviderError = (error: unknown, signal?: { aborted: boolean }): ProviderError => {
		if (error instanceof ProviderError) return error;
		const refused = refusedDestination(PROVIDER_NAME, error);
		if (refused) return refused;
		if (error instanceof RequestAbortedError || signal?.aborted) return abortedFailure(PROVIDER_NAME, error);
		if (error instanceof RequestTimeoutError) return new ProviderError("timeout", PROVIDER_NAME, "mistral did not answer in time", { cause: error });
		if (error instanceof ConnectionError) return connectionFailure(PROVIDER_NAME, error);
		if (error instanceof ResponseValidationError || error instanceof SDKValidationError) return malformedResponse(PROVIDER_NAME, "unexpected response shape", error);
		if (error instanceof MistralError) {
			return providerErrorFromStatus({
				providerName: PROVIDER_NAME,
				status: error.statusCode,
				body: error.body,
				headers: error.headers,
				apiKey: connection.apiKey,
				cause: error,
			});
		}
		return connectionFailure(PROVIDER_NAME, error);
	};

	const body = (request: GenerationRequest) => ({
		model: request.model,
		messages: request.messages.map(toMistralMessage),
		...(request.tools && request.tools.length > 0
			? {
					tools: request.tools.map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
					...(request.toolChoice ? { toolChoice: toMistralToolChoice(request.toolChoice) } : {}),
				}
			: {}),
		...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
		...(request.maxOutputTokens !== undefined ? { maxTokens: request.maxOutputTokens } : {}),
		...(request.responseFormat === "json" ? { responseFormat: responseFormatOf(request) } : {}),
		...(request.stop !== undefined ? { stop: request.stop } : {}),
		...(request.seed !== undefined ? { randomSeed: request.seed } : {}),
	});

	return {
		providerName: PROVIDER_NAME,

		async generate(request, signal): Promise<GenerationOutput> {
			try {
				const response = await client.chat.complete(body(request), { signal: signal.toAbortSignal(), retries: NO_RETRIES });
				const choice = response.choices?.[0];
				if (!choice) throw malformedResponse(PROVIDER_NAME, "no choices in the completion");
				return {
					content: sanitizeProviderText(textOf(choice.message?.content)),
					finishReason: normaliseFinishReason(choice.finishReason),
					usage: toUsage(response.usage),
					toolCalls: toToolCalls(choice.message?.toolCalls),
				};
			} catch (error) {
				throw toProviderError(error, signal);
			}
		},

		async *stream(request, signal): AsyncIterable<ProviderStreamEvent> {
			let finishReason: FinishReason | undefined;
			let usage: TokenUsage = { ...EMPTY_USAGE };
			const text = new StreamTextSanitizer();
			const toolCalls = new ToolCallAssembler();
			try {
				const events = await client.chat.stream(body(request), { signal: signal.toAbortSignal(), retries: NO_RETRIES });
				for await (const event of events) {
					const choice = event.data.choices[0];
					const content = text.push(textOf(choice?.delta.content));
					if (content) yield { type: "delta", content };
					for (const [position, call] of (choice?.delta.toolCalls ?? []).entries()) {
						toolCalls.push({ index: call.index ?? position, id: call.id, name: call.function.name, arguments: argumentsText(call.function.arguments) });
					}
					if (choice?.finishReason) finishReason = normaliseFinishReason(choice.finishReason);
					// Mistral puts usage on the last chunk unasked.
					if (event.data.usage) usage = toUsage(event.data.usage);
				}
			} catch (error) {
				throw toProviderError(error, signal);
			}
			// The SDK ends iteration quietly when its signal aborts, and a cut connection can look like
			// an end of stream: a stream is only complete once the provider said why it finished.
			if (signal.aborted) throw abortedFailure(PROVIDER_NAME);
			if (!finishReason) throw truncatedStream(PROVIDER_NAME);
			const rest = text.flush();
			if (rest) yield { type: "delta", content: rest };
			const calls = toolCalls.finish();
			if (!calls) throw malformedResponse(PROVIDER_NAME, "a streamed tool call has no name");
			for (const call of calls) yield { type: "tool_call", ...call };
			yield { type: "usage", ...usage };
			yield { type: "finish", finishReason };
		},

		async embed(texts, model, signal) {
			try {
				const response = await client.embeddings.create({ model, inputs: texts }, { signal, retries: NO_RETRIES });
				return [...response.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((item) => item.embedding ?? []);
			} catch (error) {
				throw toProviderError(error, signal);
			}
		},

		// Over the wire rather than the SDK's models.list: the body is read up to a size (credential-check.ts).
		verifyCredential(signal) {
			const url = new URL(`${mistralServerUrl(connection.baseUrl) ?? DEFAULT_SERVER_URL}/v1/models`);
			return checkModelsEndpoint(upstream, { providerName: PROVIDER_NAME, url, apiKey: connection.apiKey, signal });
		},
	};
}
