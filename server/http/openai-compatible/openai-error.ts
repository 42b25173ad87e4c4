import type { TOpenAiErrorBody } from "../../../contract/schemas/openai-compatible";
import type { AppError } from "../../shared/app-error";

/**
 * OpenAI's error `type` for a status. OpenAI SDKs choose their error class by the HTTP status
 * (BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError, ConflictError,
 * RateLimitError, InternalServerError); the type is for people and for clients that branch on it.
 */
function typeOf(error: AppError): string {
	if (error.code === "COST_QUOTA_EXCEEDED") return "insufficient_quota";
	switch (error.status) {
		case 401:
			return "authentication_error";
		case 403:
			return "permission_error";
		case 404:
			return "not_found_error";
		case 409:
			return "conflict_error";
		case 429:
			return "rate_limit_error";
		default:
			return error.status >= 500 ? "server_error" : "invalid_request_error";
	}
}

/**
 * An AppError in OpenAI's shape, the catalog's code in `code` (the catalog stays closed). A
 * validation error names its first offending field in `param` and every offender in `message`.
 */
export function openAiErrorBody(error: AppError): TOpenAiErrorBody {
	const fields = error.fields ?? [];
	const message = fields.length > 0 ? `${error.message}: ${fields.map((field) => `${field.field}: ${field.issue}`).join("; ")}` : error.message;
	return { error: { message, type: typeOf(error), param: fields[0]?.field ?? null, code: error.code } };
}
