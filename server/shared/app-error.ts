import { ERROR_STATUS, type ErrorCode } from "../../contract/errors";

export interface FieldIssue {
	field: string;
	issue: string;
}

/**
 * The one error type domain code throws. Its code decides the HTTP status (contract/errors.ts);
 * the error middleware renders it as the spec's envelope. Messages of codes below 500 are shown
 * to callers, so they must name what is wrong without leaking secrets or internals.
 */
export class AppError extends Error {
	readonly code: ErrorCode;
	readonly status: number;
	readonly fields?: FieldIssue[];
	/** Extra response headers (Retry-After, WWW-Authenticate). */
	readonly headers?: Record<string, string>;

	constructor(code: ErrorCode, message: string, options: { fields?: FieldIssue[]; headers?: Record<string, string>; cause?: unknown } = {}) {
		super(message, { cause: options.cause });
		this.name = "AppError";
		this.code = code;
		this.status = ERROR_STATUS[code];
		this.fields = options.fields;
		this.headers = options.headers;
	}

	static validation(fields: FieldIssue[], message = "Request failed validation"): AppError {
		return new AppError("VALIDATION_ERROR", message, { fields });
	}

	static notFound(what: string): AppError {
		return new AppError("NOT_FOUND", `${what} not found`);
	}
}
