import { ERROR_STATUS, type ErrorCode, type ErrorStatus } from "../../contract/errors";

export interface FieldIssue {
	field: string;
	issue: string;
}

/**
 * The one error type domain code throws. Its code is one of the spec's closed catalog
 * (contract/errors.ts) and decides the HTTP status, unless a status the catalog allows for that
 * code is given (INTERNAL_ERROR as 502 for a provider that failed); the error middleware renders it
 * as the spec's envelope. Messages of codes below 500 are shown to callers, so they must name what
 * is wrong without leaking secrets or internals.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
	readonly code: C;
	readonly status: number;
	readonly fields?: FieldIssue[];
	/** Extra response headers (Retry-After, WWW-Authenticate). */
	readonly headers?: Record<string, string>;

	constructor(code: C, message: string, options: { status?: ErrorStatus<C>; fields?: FieldIssue[]; headers?: Record<string, string>; cause?: unknown } = {}) {
		super(message, { cause: options.cause });
		this.name = "AppError";
		this.code = code;
		this.status = options.status ?? ERROR_STATUS[code];
		this.fields = options.fields;
		this.headers = options.headers;
	}

	static validation(fields: FieldIssue[], message = "Request failed validation"): AppError<"VALIDATION_ERROR"> {
		return new AppError("VALIDATION_ERROR", message, { fields });
	}

	static notFound(what: string): AppError<"NOT_FOUND"> {
		return new AppError("NOT_FOUND", `${what} not found`);
	}
}
