/**
 * The spec's closed error catalog (spec, Errors). `code` on an APIError is one of these, but the
 * spec also says clients must accept codes they do not know, hence `string & {}`: it keeps the
 * union's autocompletion while any other string still type-checks.
 */
export const ERROR_CODES = [
	"VALIDATION_ERROR",
	"INVALID_REQUEST",
	"PAYLOAD_TOO_LARGE",
	"UNAUTHENTICATED",
	"INVALID_CREDENTIALS",
	"FORBIDDEN",
	"RATE_LIMITED",
	"COST_QUOTA_EXCEEDED",
	"ASSISTANT_NOT_FOUND",
	"DEPLOYMENT_NOT_FOUND",
	"IDEMPOTENCY_KEY_CONFLICT",
	"INTERNAL_ERROR",
	"NOT_FOUND",
] as const;

/** A code of the catalog. */
export type KnownErrorCode = (typeof ERROR_CODES)[number];

/** What `error.code` can be: a catalog code, or one added to the server after this SDK was built. */
export type ErrorCode = KnownErrorCode | (string & {});

export function isKnownErrorCode(code: string | undefined): code is KnownErrorCode {
	return code !== undefined && (ERROR_CODES as readonly string[]).includes(code);
}
