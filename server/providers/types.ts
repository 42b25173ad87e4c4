import type { Cancellation } from "./cancellation";
import type { ProviderName } from "../db/entities";

/**
 * What every model provider adapter speaks. The runtime never sees an SDK type: adapters take
 * this normalised request and yield these normalised events, so retries, timeouts, SSE and
 * tracing are written once, above the adapters.
 */
export type ChatMessage =
	| { role: "system" | "user"; content: string }
	/** `toolCalls`: the calls the model asked for in this turn (the results follow as `tool` messages). */
	| { role: "assistant"; content: string; toolCalls?: ToolCall[] }
	/** A tool's result, answering the call `toolCallId`: untrusted text, never part of the system prompt. */
	| { role: "tool"; toolCallId: string; name: string; content: string };

/** A function the model may call: `parameters` is the JSON Schema of its arguments object. */
export interface ToolDefinition {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

/** Whether the model may (`auto`), must (`required`, or one named tool) or must not (`none`) call tools. */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/** A call the model made: `arguments` is the JSON text it wrote, unparsed (it may be invalid). */
export interface ToolCall {
	id: string;
	name: string;
	arguments: string;
}

export interface GenerationRequest {
	model: string;
	messages: ChatMessage[];
	temperature?: number;
	maxOutputTokens?: number;
	responseFormat?: "text" | "json";
	/** Offered to the model; absent or empty: no tools. */
	tools?: ToolDefinition[];
	toolChoice?: ToolChoice;
	/** With responseFormat `json`: the JSON Schema the answer must follow, where the provider constrains output to one. */
	jsonSchema?: JsonSchemaFormat;
	/** Sequences where generation stops (at most 4). */
	stop?: string[];
	/** Repeatable sampling, where the provider offers it. */
	seed?: number;
	/** The caller's end-user identifier, for providers that take one (OpenAI). */
	user?: string;
}

export interface JsonSchemaFormat {
	name: string;
	description?: string;
	schema: Record<string, unknown>;
	strict?: boolean;
}

export interface TokenUsage {
	inputTokens: number;
	outputTokens: number;
	totalTokens: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

export interface GenerationOutput {
	content: string;
	finishReason: FinishReason;
	usage: TokenUsage;
	/** The calls the model asked for, in its order; empty when it answered in text only. */
	toolCalls: ToolCall[];
}

/**
 * A stream is zero or more deltas, then the tool calls the model asked for (each once complete:
 * the providers' per-index fragments are assembled by the adapter), then exactly one usage, then
 * exactly one finish.
 */
export type ProviderStreamEvent =
	| { type: "delta"; content: string }
	| ({ type: "tool_call" } & ToolCall)
	| ({ type: "usage" } & TokenUsage)
	| { type: "finish"; finishReason: FinishReason };

export interface ProviderAdapter {
	readonly providerName: ProviderName;
	generate(request: GenerationRequest, signal: Cancellation): Promise<GenerationOutput>;
	stream(request: GenerationRequest, signal: Cancellation): AsyncIterable<ProviderStreamEvent>;
	/** One vector per text, in input order. */
	embed(texts: string[], model: string, signal?: AbortSignal): Promise<number[][]>;
	/** Whether the provider accepts the credential (credential-check.ts): its models list; a refusal is a ProviderError. */
	verifyCredential(signal: Cancellation): Promise<CredentialCheck>;
}

/** What a provider said when it accepted a credential: how many models it offers (null when it did not say) and the first few. */
export interface CredentialCheck {
	modelCount: number | null;
	models: string[];
}

/** A decrypted credential: lives in memory only, never logged nor returned. */
export interface ProviderConnection {
	apiKey: string;
	/** Overrides the provider's default API address (proxies, regional endpoints, compatible servers). */
	baseUrl: string | null;
}

export const EMPTY_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
