import type { IncomingMessage, ServerResponse } from "node:http";
import { takeRandomBytes } from "../../shared/ids";

const CLIENT_REQUEST_ID = /^[\w.:-]{8,128}$/;

/** 12 pooled random bytes (shared/ids.ts): unguessable, without a randomBytes call per request. */
export function newRequestId(): string {
	const { bytes, start, end } = takeRandomBytes(12);
	return `req_${bytes.toString("base64url", start, end)}`;
}

/** Every response carries X-Request-Id; a well-formed one from a proxy is kept for correlation. */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
	const incoming = request.headers["x-request-id"];
	const requestId = typeof incoming === "string" && CLIENT_REQUEST_ID.test(incoming) ? incoming : newRequestId();
	response.setHeader("X-Request-Id", requestId);
	return requestId;
}
