import type { ErrorCode } from "../../contract/errors";
import { AppError } from "../shared/app-error";
import { sanitizeProviderText } from "./sanitize-text";

/**
 * Why a provider call failed, independent of provider and SDK. Each kind maps to one catalog code
 * (contract/errors.ts), so the HTTP layer renders a ProviderError like any other AppError.
 */
export type ProviderFailureKind =
	| "rate_limited"
	| "authentication"
	| "invalid_request"
	| "server_error"
	| "malformed_response"
	| "unavailable"
	| "timeout"
	| "aborted";

const CODE_BY_KIND: Record<ProviderFailureKind, ErrorCode> = {
	rate_limited: "PROVIDER_RATE_LIMITED",
	authentication: "PROVIDER_AUTHENTICATION_FAILED",
	invalid_request: "INVALID_REQUEST",
	server_error: "PROVIDER_ERROR",
	malformed_response: "PROVIDER_ERROR",
	unavailable: "PROVIDER_UNAVAILABLE",
	timeout: "PROVIDER_TIMEOUT",
	// Only seen when our caller went away; nobody reads the answer, the code is for logs and traces.
	aborted: "PROVIDER_UNAVAILABLE",
};

/** Transient failures worth another attempt (openai-node retries the same set: 408/429/5xx/connection). */
const RETRYABLE_KINDS: ReadonlySet<ProviderFailureKind> = new Set(["rate_limited", "server_error", "unavailable", "timeout"]);

export class ProviderError extends AppError {
	readonly kind: ProviderFailureKind;
	readonly providerName: string;
	readonly retryable: boolean;
	/** From the provider's Retry-After (or retry-after-ms) header. */
	readonly retryAfterMs?: number;
	readonly upstreamStatus?: number;

	constructor(
		kind: ProviderFailureKind,
		providerName: string,
		message: string,
		options: { retryAfterMs?: number; upstreamStatus?: number; retryable?: boolean; cause?: unknown } = {},
	) {
		const retryAfterSeconds = options.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(options.retryAfterMs / 1000));
		// Messages quote provider error bodies and are traced: only text the database can store.
		super(CODE_BY_KIND[kind], sanitizeProviderText(message), {
			cause: options.cause,
			// Forwarded so our caller backs off as long as the provider asked us to (RFC 9110 §10.2.3).
			headers: kind === "rate_limited" && retryAfterSeconds !== undefined ? { "Retry-After": String(retryAfterSeconds) } : undefined,
		});
		this.name = "ProviderError";
		this.kind = kind;
		this.providerName = providerName;
		this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
		this.retryAfterMs = options.retryAfterMs;
		this.upstreamStatus = options.upstreamStatus;
	}
}
