import type { ProviderFailureKind } from "../../providers/provider-error";

/** Turns texts into vectors of one fixed space. */
export interface Embedder {
	/** `provider/model`, for messages. */
	readonly name: string;
	embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Embedding failures the document owner (or operator) can act on; the message becomes
 * failureReason. `kind` is the provider failure it was (provider-error.ts): a search whose query
 * cannot be embedded answers with that kind's code and status, as a generation does.
 */
export class EmbeddingError extends Error {
	/** From the provider's Retry-After, when it sent one. */
	retryAfterMs?: number;

	constructor(
		message: string,
		readonly retryable: boolean,
		readonly kind: ProviderFailureKind = retryable ? "server_error" : "invalid_request",
	) {
		super(message);
		this.name = "EmbeddingError";
	}
}

export function l2Normalize(vector: Float32Array): Float32Array {
	let sum = 0;
	for (let index = 0; index < vector.length; index++) sum += vector[index] * vector[index];
	const norm = Math.sqrt(sum);
	if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] /= norm;
	return vector;
}

/** Why vectors of another size than a source's are refused: a provider silently changing a model, or a wrong base URL, must not mix spaces. */
export function dimensionMismatch(embedderName: string, returned: number, held: number): string {
	return `${embedderName} returned ${returned}-dimensional vectors but this source holds ${held}-dimensional ones`;
}
