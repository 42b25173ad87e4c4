import type { ErrorStatus } from "../../contract/errors";
import { AppError } from "../shared/app-error";
import { sanitizeProviderText } from "./sanitize-text";

/**
 * Why a provider call failed, independent of provider and SDK. Each kind maps to one catalog code
 * and status (contract/errors.ts), so the HTTP layer renders a ProviderError like any other
 * AppError; `kind`, `retryable` and `providerName` carry the detail (stream `error` events, traces).
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

type ProviderErrorCode = "RATE_LIMITED" | "INVALID_REQUEST" | "INTERNAL_ERROR";
type ProviderErrorStatus = ErrorStatus<ProviderErrorCode>;

/**
 * How each kind leaves the server: only the spec's catalog codes, with the most useful HTTP status
 * (README, "Provider failures"); `message` says which provider failed and what to do.
 */
const ANSWER_BY_KIND: Record<ProviderFailureKind, { code: ProviderErrorCode; status: ProviderErrorStatus }> = {
	rate_limited: { code: "RATE_LIMITED", status: 429 },
	// The workspace's stored credential is what must change: a request the caller can fix, not our failure.
	authentication: { code: "INVALID_REQUEST", status: 400 },
	invalid_request: { code: "INVALID_REQUEST", status: 400 },
	server_error: { code: "INTERNAL_ERROR", status: 502 },
	malformed_response: { code: "INTERNAL_ERROR", status: 502 },
	unavailable: { code: "INTERNAL_ERROR", status: 503 },
	timeout: { code: "INTERNAL_ERROR", status: 504 },
	// Only seen when our caller went away; nobody reads the answer, the code is for logs and traces.
	aborted: { code: "INTERNAL_ERROR", status: 503 },
};

/** Without a Retry-After from the provider, a 429 still tells the caller to back off at least this long. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** Transient failures worth another attempt (openai-node retries the same set: 408/429/5xx/connection). */
const RETRYABLE_KINDS: ReadonlySet<ProviderFailureKind> = new Set(["rate_limited", "server_error", "unavailable", "timeout"]);

export class ProviderError extends AppError<ProviderErrorCode> {
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
		const retryAfterSeconds = options.retryAfterMs === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(options.retryAfterMs / 1000));
		const { code, status } = ANSWER_BY_KIND[kind];
		// Messages quote provider error bodies and are traced: only text the database can store.
		super(code, sanitizeProviderText(message), {
			status,
			cause: options.cause,
			// Forwarded so our caller backs off as long as the provider asked us to (RFC 9110 §10.2.3).
			headers: kind === "rate_limited" ? { "Retry-After": String(retryAfterSeconds) } : undefined,
		});
		this.name = "ProviderError";
		this.kind = kind;
		this.providerName = providerName;
		this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
		this.retryAfterMs = options.retryAfterMs;
		this.upstreamStatus = options.upstreamStatus;
	}
}
