/**
 * The SDK's error classes (spec, Errors, "SDK mapping"), shaped after openai-node's core/error.ts.
 *
 *   PlatformError                      base class; transport failures are this class (spec: "transport
 *   ├── APIConnectionError             failures (network, timeout, abort) throw the base error class")
 *   │   └── APITimeoutError
 *   ├── APIUserAbortError
 *   ├── GenerationStreamError          a terminal `error` event, raised by Stream helpers
 *   ├── DocumentFailedError            a document's ingestion ended FAILED (waitUntilReady, uploadAndPoll)
 *   └── APIError                       any non-2xx answer: status, code, fields, requestId, headers
 *       ├── BadRequestError            400
 *       ├── AuthenticationError        401
 *       ├── PermissionDeniedError      403
 *       ├── NotFoundError              404
 *       ├── ConflictError              409
 *       ├── RateLimitError             429
 *       └── ServerError                500 and above
 */

import type { ErrorCode } from "./error-codes.js";
import type { FieldIssue, KnowledgeDocument } from "./generated/api.js";

export type { FieldIssue };

export class PlatformError extends Error {
	override readonly name: string = "PlatformError";
}

interface ErrorEnvelope {
	code: ErrorCode;
	status?: number;
	message?: string;
	fields?: FieldIssue[];
}

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
	return typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string";
}

export class APIError extends PlatformError {
	override readonly name: string = "APIError";
	/** HTTP status of the answer. */
	readonly status: number;
	/**
	 * The envelope's stable code (e.g. `VALIDATION_ERROR`); branch on it, never on `message`. Codes may be
	 * added later, so handle unknown ones. Undefined when the body is not the platform's envelope (e.g. an
	 * HTML page from a proxy, or object storage's XML during a presigned upload).
	 */
	readonly code: ErrorCode | undefined;
	/** Offending values, only for VALIDATION_ERROR. */
	readonly fields: FieldIssue[] | undefined;
	/** The `X-Request-Id` response header; quote it when reporting a problem. */
	readonly requestId: string | undefined;
	/**
	 * The `X-Trace-Id` header: set when a generation failed after it reached the model provider (a
	 * provider error, a timeout), whose trace then records the failure.
	 */
	readonly traceId: string | undefined;
	readonly headers: Headers;
	/** The parsed body (the envelope, or the raw text when it is not JSON). */
	readonly body: unknown;

	constructor(status: number, body: unknown, message: string | undefined, headers: Headers) {
		super(APIError.describe(status, body, message));
		this.status = status;
		this.headers = headers;
		this.body = body;
		this.code = isErrorEnvelope(body) ? body.code : undefined;
		this.fields = isErrorEnvelope(body) ? body.fields : undefined;
		this.requestId = headers.get("x-request-id") ?? undefined;
		this.traceId = headers.get("x-trace-id") ?? undefined;
	}

	private static describe(status: number, body: unknown, message: string | undefined): string {
		if (message) return message;
		if (isErrorEnvelope(body)) return `${status} ${body.code}: ${body.message ?? "(no message)"}`;
		if (typeof body === "string" && body.length > 0) return `${status}: ${body.slice(0, 200)}`;
		return `${status} status code (no body)`;
	}

	/** The subclass for `status` (spec, Errors, "SDK mapping"); any other status is APIError itself. */
	static generate(status: number, body: unknown, headers: Headers, message?: string): APIError {
		const ErrorClass = errorClassForStatus(status);
		return new ErrorClass(status, body, message, headers);
	}
}

export class BadRequestError extends APIError {
	override readonly name: string = "BadRequestError";
}
export class AuthenticationError extends APIError {
	override readonly name: string = "AuthenticationError";
}
export class PermissionDeniedError extends APIError {
	override readonly name: string = "PermissionDeniedError";
}
export class NotFoundError extends APIError {
	override readonly name: string = "NotFoundError";
}
export class ConflictError extends APIError {
	override readonly name: string = "ConflictError";
}
export class RateLimitError extends APIError {
	override readonly name: string = "RateLimitError";
}
export class ServerError extends APIError {
	override readonly name: string = "ServerError";
}

function errorClassForStatus(status: number): typeof APIError {
	switch (status) {
		case 400:
			return BadRequestError;
		case 401:
			return AuthenticationError;
		case 403:
			return PermissionDeniedError;
		case 404:
			return NotFoundError;
		case 409:
			return ConflictError;
		case 429:
			return RateLimitError;
		default:
			return status >= 500 ? ServerError : APIError;
	}
}

/** The request never got an answer: DNS, refused or reset connection, TLS. */
export class APIConnectionError extends PlatformError {
	override readonly name: string = "APIConnectionError";
	constructor(message = "Connection error.", options?: { cause?: unknown }) {
		super(message, options);
	}
}

/** No answer within the client's `timeoutMs` (retries exhausted). */
export class APITimeoutError extends APIConnectionError {
	override readonly name: string = "APITimeoutError";
	constructor(message = "Request timed out.", options?: { cause?: unknown }) {
		super(message, options);
	}
}

/** The caller aborted the request through its `signal`; never retried, and not a connection error. */
export class APIUserAbortError extends PlatformError {
	override readonly name: string = "APIUserAbortError";
	constructor(message = "Request was aborted.", options?: { cause?: unknown }) {
		super(message, options);
	}
}

/** A stream ended with a terminal `error` event (spec, Events): the provider failed after the stream opened. */
export class GenerationStreamError extends PlatformError {
	override readonly name: string = "GenerationStreamError";
	readonly code: ErrorCode;
	readonly retryable: boolean;
	readonly providerName: string | undefined;

	constructor(payload: { code: string; message: string; retryable: boolean; providerName?: string }) {
		super(payload.message);
		this.code = payload.code;
		this.retryable = payload.retryable;
		this.providerName = payload.providerName;
	}
}

/** A knowledge document's ingestion ended FAILED; `reason` is the server's `failureReason`. */
export class DocumentFailedError extends PlatformError {
	override readonly name: string = "DocumentFailedError";
	readonly documentId: string;
	readonly reason: string;
	/** The document as last read, status FAILED; `POST .../retry` (documents.retry) re-runs it. */
	readonly document: KnowledgeDocument;

	constructor(document: KnowledgeDocument) {
		const reason = document.failureReason ?? "no reason given";
		super(`Ingestion of ${JSON.stringify(document.filename)} (${document.id}) failed: ${reason}`);
		this.documentId = document.id;
		this.reason = reason;
		this.document = document;
	}
}
