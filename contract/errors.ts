/**
 * The closed error catalog (spec, Errors): exactly the spec's thirteen codes, and the HTTP statuses
 * each may carry. The first status is the code's own; the others keep a more useful HTTP status
 * where the spec's table leaves one open (a provider's 5xx is 502, not 500). Clients branch on
 * `code`, never on `message` or `status`, and must accept codes added later; the server adds none.
 */
export const ERROR_STATUSES = {
	VALIDATION_ERROR: [400],
	// 408 and 431: what Node's HTTP parser refuses (a request not received in time, headers too large).
	INVALID_REQUEST: [400, 408, 431],
	PAYLOAD_TOO_LARGE: [413],
	UNAUTHENTICATED: [401],
	INVALID_CREDENTIALS: [401],
	FORBIDDEN: [403],
	RATE_LIMITED: [429],
	COST_QUOTA_EXCEEDED: [429],
	ASSISTANT_NOT_FOUND: [404],
	DEPLOYMENT_NOT_FOUND: [404],
	IDEMPOTENCY_KEY_CONFLICT: [409],
	// 502: a provider failed or answered nonsense; 503: a provider, or our database, cannot be reached; 504: a timeout.
	INTERNAL_ERROR: [500, 502, 503, 504],
	NOT_FOUND: [404],
} as const satisfies Record<string, readonly [number, ...number[]]>;

export type ErrorCode = keyof typeof ERROR_STATUSES;

/** The HTTP statuses code `C` may be answered with. */
export type ErrorStatus<C extends ErrorCode> = (typeof ERROR_STATUSES)[C][number];

export const ERROR_CODES = Object.keys(ERROR_STATUSES) as [ErrorCode, ...ErrorCode[]];

/** Each code's own status: the one it has unless an error says otherwise. */
export const ERROR_STATUS = Object.fromEntries(ERROR_CODES.map((code) => [code, ERROR_STATUSES[code][0]])) as {
	[C in ErrorCode]: (typeof ERROR_STATUSES)[C][0];
};

export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
	VALIDATION_ERROR:
		"The body, query or path failed validation; `fields` lists every offender by path. Also a document over a size limit (the direct-upload limit, 25 MiB, or what is left of the workspace's storage allowance), named on its size field.",
	INVALID_REQUEST:
		"Malformed JSON, wrong Content-Type, or a request that is well-formed but cannot be served: no credential for the provider, a provider that rejects the workspace's credential or the request (the message names the provider and what to fix), a document not in a state that allows the operation (retrying a document that is not FAILED, completing an upload twice).",
	PAYLOAD_TOO_LARGE: "The request body exceeded the size limit (HTTP 413).",
	UNAUTHENTICATED: "Authorization header missing, malformed or empty.",
	INVALID_CREDENTIALS: "API key unknown, revoked, or without the csk_live_ prefix.",
	FORBIDDEN: "The API key lacks the scope the endpoint requires.",
	RATE_LIMITED:
		"Too many requests for this API key, or the model provider rate-limited the workspace's credential (the message says which); retry after the Retry-After header.",
	COST_QUOTA_EXCEEDED: "The workspace's spend quota is reached.",
	ASSISTANT_NOT_FOUND: "No assistant matches the slug.",
	DEPLOYMENT_NOT_FOUND: "The assistant is not deployed to the target environment (or is archived).",
	IDEMPOTENCY_KEY_CONFLICT: "An Idempotency-Key was reused with a different body, or its first request is still running.",
	INTERNAL_ERROR:
		"Unexpected server error, or a dependency that failed: 502 when the model provider failed or answered something malformed, 503 when it (or this server's database) cannot be reached, 504 when the generation timed out. Safe to retry; the message names the provider, and a 500 quotes the X-Request-Id.",
	NOT_FOUND: "No such knowledge source or document in the key's workspace (also: unknown route).",
};
