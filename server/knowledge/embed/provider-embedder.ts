import { z } from "zod";
import { findEgressRefusal } from "../../egress/egress-refused-error";
import { type EgressFetch, readTextUpTo } from "../../egress/egress-fetch";
import { failureKindOfStatus, findCause, quoteUpstreamErrorMessage, readRetryAfterMs } from "../../providers/upstream-errors";
import { type Embedder, EmbeddingError } from "./embedder";

const DEFAULT_BASE_URLS: Record<string, string> = {
	openai: "https://api.openai.com/v1",
	mistral: "https://api.mistral.ai/v1",
};

/** Both OpenAI and Mistral answer /v1/embeddings in this shape. */
const ZEmbeddingsResponse = z.object({
	data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
});

const BATCH_SIZE = 64;
/** An error body worth reading is a provider's short JSON; past this, whatever answered is not one. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_ATTEMPTS = 4;

export interface ProviderEmbedderOptions {
	provider: string;
	model: string;
	apiKey: string;
	baseUrl?: string | null;
	/** The egress fetch (server/egress): the base URL is the workspace's choice. */
	fetch: EgressFetch;
	timeoutMs?: number;
	/** Tries per batch (default 4): a search's query makes one and answers the failure at once, for its caller to retry. */
	attempts?: number;
}

/**
 * OpenAI, Mistral and OpenAI-compatible embeddings over plain fetch (POST {base}/embeddings),
 * batched, with retries on 429/5xx/network errors (exponential backoff with jitter, honouring
 * Retry-After). Deliberately separate from the chat adapters in server/providers/. Redirects are
 * not followed (the request carries the key), and of an error body only the provider's own short
 * message is quoted.
 */
export class ProviderEmbedder implements Embedder {
	readonly name: string;
	private readonly baseUrl: string;

	constructor(private readonly options: ProviderEmbedderOptions) {
		this.name = `${options.provider}/${options.model}`;
		const base = options.baseUrl ?? DEFAULT_BASE_URLS[options.provider];
		if (!base) throw new EmbeddingError(`No base URL configured for the ${options.provider} credential`, false);
		this.baseUrl = base.replace(/\/+$/, "");
	}

	async embed(texts: string[]): Promise<Float32Array[]> {
		const vectors: Float32Array[] = [];
		for (let start = 0; start < texts.length; start += BATCH_SIZE) {
			vectors.push(...(await this.embedBatch(texts.slice(start, start + BATCH_SIZE))));
		}
		return vectors;
	}

	private async embedBatch(input: string[]): Promise<Float32Array[]> {
		let lastError: EmbeddingError | undefined;
		const attempts = this.options.attempts ?? MAX_ATTEMPTS;
		for (let attempt = 1; attempt <= attempts; attempt++) {
			try {
				return await this.request(input);
			} catch (error) {
				lastError = error instanceof EmbeddingError ? error : new EmbeddingError(`${this.name}: ${(error as Error).message}`, true);
				if (!lastError.retryable || attempt === attempts) break;
				const retryAfter = lastError.retryAfterMs;
				await new Promise((resolve) => setTimeout(resolve, retryAfter ?? 2 ** attempt * 250 * (0.5 + Math.random())));
			}
		}
		throw lastError ?? new EmbeddingError(`${this.name}: embedding failed`, true);
	}

	private async request(input: string[]): Promise<Float32Array[]> {
		const timeoutMs = this.options.timeoutMs ?? 60_000;
		let response: Response;
		try {
			response = await this.options.fetch(`${this.baseUrl}/embeddings`, {
				method: "POST",
				headers: { authorization: `Bearer ${this.options.apiKey}`, "content-type": "application/json" },
				body: JSON.stringify({ model: this.options.model, input }),
				signal: AbortSignal.timeout(timeoutMs),
				redirect: "manual",
			});
		} catch (error) {
			const refusal = findEgressRefusal(error);
			if (refusal) throw new EmbeddingError(`${this.name}: the base URL is refused: ${refusal.message}`, false);
			// The timeout signal fired: its reason, a TimeoutError, is the failure or its cause.
			if (findCause(error, ({ name }) => name === "TimeoutError")) throw new EmbeddingError(`${this.name} did not answer within ${timeoutMs / 1000} s`, true, "timeout");
			throw new EmbeddingError(`${this.name} could not be reached (${(error as Error).message})`, true, "unavailable");
		}
		if (response.status >= 300 && response.status < 400) {
			await response.body?.cancel();
			throw new EmbeddingError(`${this.name} answered with a redirect (HTTP ${response.status}), which is not followed; set the base URL to the address it redirects to`, false);
		}
		if (!response.ok) {
			const body = await readTextUpTo(response, MAX_ERROR_BODY_BYTES).catch(() => undefined);
			const retryable = response.status === 429 || response.status >= 500;
			const quoted = quoteUpstreamErrorMessage(body, this.options.apiKey);
			const error = new EmbeddingError(
				response.status === 401 || response.status === 403
					? `${this.name} rejected the workspace's credential (HTTP ${response.status})`
					: `${this.name} answered HTTP ${response.status}${quoted ? `: ${quoted}` : ""}`,
				retryable,
				failureKindOfStatus(response.status),
			);
			// As the chat adapters read it: seconds, an HTTP date, or OpenAI's retry-after-ms.
			const retryAfter = readRetryAfterMs(response.headers);
			if (retryAfter !== undefined && retryAfter > 0) error.retryAfterMs = Math.min(retryAfter, 30_000);
			throw error;
		}
		const parsed = ZEmbeddingsResponse.safeParse(await response.json().catch(() => null));
		if (!parsed.success || parsed.data.data.length !== input.length) {
			throw new EmbeddingError(`${this.name} returned a malformed embeddings response`, true, "malformed_response");
		}
		return [...parsed.data.data].sort((left, right) => left.index - right.index).map((item) => Float32Array.from(item.embedding));
	}
}
