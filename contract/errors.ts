/**
 * The closed error catalog (spec, Errors) and the one table mapping each code to its HTTP status.
 * Clients branch on `code`, never on `message`, and must accept codes added later.
 */
export const ERROR_STATUS = {
	VALIDATION_ERROR: 400,
	INVALID_REQUEST: 400,
	STORAGE_QUOTA_EXCEEDED: 400,
	UNAUTHENTICATED: 401,
	INVALID_CREDENTIALS: 401,
	FORBIDDEN: 403,
	NOT_FOUND: 404,
	ASSISTANT_NOT_FOUND: 404,
	DEPLOYMENT_NOT_FOUND: 404,
	IDEMPOTENCY_KEY_CONFLICT: 409,
	INVALID_STATE: 409,
	PAYLOAD_TOO_LARGE: 413,
	RATE_LIMITED: 429,
	COST_QUOTA_EXCEEDED: 429,
	PROVIDER_RATE_LIMITED: 429,
	INTERNAL_ERROR: 500,
	PROVIDER_ERROR: 502,
	PROVIDER_AUTHENTICATION_FAILED: 502,
	PROVIDER_UNAVAILABLE: 503,
	SERVICE_UNAVAILABLE: 503,
	PROVIDER_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
	VALIDATION_ERROR: "The body, query or path failed validation; `fields` lists every offender by path.",
	INVALID_REQUEST:
		"Malformed JSON, wrong Content-Type, or a request that is well-formed but cannot be served (e.g. no credential for the provider).",
	STORAGE_QUOTA_EXCEEDED: "The workspace's knowledge storage allowance would be exceeded.",
	UNAUTHENTICATED: "Authorization header missing, malformed or empty.",
	INVALID_CREDENTIALS: "API key unknown, revoked, or without the csk_live_ prefix.",
	FORBIDDEN: "The API key lacks the scope the endpoint requires.",
	NOT_FOUND: "No such knowledge source or document in the key's workspace (also: unknown route).",
	ASSISTANT_NOT_FOUND: "No assistant matches the slug.",
	DEPLOYMENT_NOT_FOUND: "The assistant is not deployed to the target environment (or is archived).",
	IDEMPOTENCY_KEY_CONFLICT: "An Idempotency-Key was reused with a different body, or its first request is still running.",
	INVALID_STATE: "The resource is not in a state that allows the operation (e.g. retry of a document that is not FAILED).",
	PAYLOAD_TOO_LARGE: "The request body exceeded the size limit (HTTP 413).",
	RATE_LIMITED: "Too many requests for this API key; retry after the Retry-After header.",
	COST_QUOTA_EXCEEDED: "The workspace's spend quota is reached.",
	PROVIDER_RATE_LIMITED: "The model provider rate-limited the workspace's credential; retry after backoff.",
	INTERNAL_ERROR: "Unexpected server error; safe to retry. Quote the X-Request-Id header when reporting it.",
	PROVIDER_ERROR: "The model provider failed (5xx or a malformed answer). A request the provider rejects as invalid (e.g. unknown model) is INVALID_REQUEST.",
	PROVIDER_AUTHENTICATION_FAILED: "The model provider rejected the workspace's stored credential; an operator must fix it.",
	PROVIDER_UNAVAILABLE: "The model provider could not be reached.",
	PROVIDER_TIMEOUT: "The generation exceeded config.timeoutMs (or the default timeout).",
	SERVICE_UNAVAILABLE: "This server cannot serve right now (e.g. its database is unreachable); retry later.",
};

/** Codes a client may retry unchanged (after backoff). */
export const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
	"RATE_LIMITED",
	"PROVIDER_RATE_LIMITED",
	"INTERNAL_ERROR",
	"PROVIDER_ERROR",
	"PROVIDER_UNAVAILABLE",
	"PROVIDER_TIMEOUT",
	"SERVICE_UNAVAILABLE",
]);
