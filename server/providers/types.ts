import type { Cancellation } from "./cancellation";
import type { ProviderName } from "../db/entities";

/**
 * What every model provider adapter speaks. The runtime never sees an SDK type: adapters take
 * this normalised request and yield these normalised events, so retries, timeouts, SSE and
 * tracing are written once, above the adapters.
 */
export interface ChatMessage {
	role: "system" | "user" | "assistant";
	content: string;
}

export interface GenerationRequest {
	model: string;
	messages: ChatMessage[];
	temperature?: number;
	maxOutputTokens?: number;
	responseFormat?: "text" | "json";
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
}

/** A stream is zero or more deltas, then exactly one usage, then exactly one finish. */
export type ProviderStreamEvent =
	| { type: "delta"; content: string }
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
