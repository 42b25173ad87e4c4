import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { TErrorEnvelope } from "../../../contract/schemas/common";
import { isUnavailable } from "../../db/database-unavailable";
import { AppError } from "../../shared/app-error";
import type { Logger } from "../../shared/logger";
import { openAiErrorBody } from "../openai-compatible/openai-error";
import { newRequestId } from "./request-id";

/**
 * How a route's failures are written: the spec's envelope, or OpenAI's error shape on the
 * OpenAI-compatible surface (route metadata `errorFormat`).
 */
export type ErrorFormat = "envelope" | "openai";

/** The spec's error envelope (or OpenAI's shape), on plain node:http: every route's failures are answered here. */
export function sendError(request: IncomingMessage, response: ServerResponse, error: AppError, format: ErrorFormat = "envelope"): void {
	for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
	settleUnreadBody(request, response);
	sendJson(response, error.status, format === "openai" ? openAiErrorBody(error) : envelopeOf(error));
}

function envelopeOf(error: AppError): TErrorEnvelope {
	const envelope: TErrorEnvelope = { code: error.code, status: error.status, message: error.message };
	if (error.fields) envelope.fields = error.fields;
	return envelope;
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	response.statusCode = status;
	response.setHeader("Content-Type", "application/json; charset=utf-8");
	response.setHeader("Content-Length", Buffer.byteLength(text));
	response.end(text);
}

/** An unread body up to this size is read and discarded so the connection can serve the next request. */
const DRAINED_BODY_BYTES = 64 * 1024;
/** ... but only if it arrives within this; a slow sender loses the connection. */
const DRAIN_GRACE_MS = 2_000;

/**
 * An error answered before the body was read (401 before the body, 413 mid-body) must not leave
 * the connection to the sender's pace. A small declared body (usually in the same packets as the
 * headers) is read and discarded, for at most DRAIN_GRACE_MS, keeping the connection alive; any
 * other is never read: the answer says `Connection: close` and the connection closes once it is
 * written (RFC 9112 §9.6).
 */
function settleUnreadBody(request: IncomingMessage, response: ServerResponse): void {
	if (request.complete || request.readableEnded || response.headersSent || DISCARDING in request) return;
	const declared = Number(request.headers["content-length"]);
	if (request.headers["transfer-encoding"] !== undefined || !(declared <= DRAINED_BODY_BYTES)) {
		response.setHeader("Connection", "close");
		return;
	}
	const timer = setTimeout(() => request.socket.destroy(), DRAIN_GRACE_MS);
	request.once("end", () => clearTimeout(timer));
	request.once("close", () => clearTimeout(timer));
	request.unpipe();
	request.resume();
}

const DISCARDING = Symbol("discarding the body");
/** How long a refused body may take to arrive in full before its connection is closed. */
const DISCARD_GRACE_MS = 10_000;

/**
 * Reads and discards the rest of a body refused for its size, up to `maxBytes` and for at most
 * DISCARD_GRACE_MS, so a client still sending reads the 400 instead of a connection reset (closing a
 * socket with unread data resets it, and clients such as fetch then lose the answer). Past either
 * bound the connection is closed. For authenticated callers only: a stranger's body is never read.
 */
export function discardRestOfBody(request: IncomingMessage, maxBytes: number): void {
	(request as IncomingMessage & { [DISCARDING]?: true })[DISCARDING] = true;
	let received = 0;
	const close = () => {
		stop();
		request.socket.destroy();
	};
	const timer = setTimeout(close, DISCARD_GRACE_MS);
	const onData = (chunk: Buffer) => {
		received += chunk.length;
		if (received > maxBytes) close();
	};
	const stop = () => {
		clearTimeout(timer);
		request.off("data", onData);
		request.off("end", stop);
		request.off("close", stop);
	};
	request.on("data", onData);
	request.once("end", stop);
	request.once("close", stop);
	request.resume();
}

/**
 * Answers any failure with the envelope. Known errors keep their code and status; anything else is
 * our fault: logged with the request id, and the caller learns nothing internal.
 */
export function respondWithError(logger: Logger, requestId: string, request: IncomingMessage, response: ServerResponse, error: unknown, format: ErrorFormat = "envelope"): void {
	const known = error instanceof AppError ? error : undefined;
	if (known) {
		if (known.status >= 500) logger.warn("request failed upstream", { requestId, code: known.code, message: known.message });
		if (response.headersSent) {
			response.destroy();
			return;
		}
		return sendError(request, response, known, format);
	}
	if (isUnavailable(error)) {
		// The database is restarting or unreachable: worth a retry in a moment, and not a bug of ours.
		logger.warn("request failed: database unavailable", { requestId, method: request.method, path: request.url?.split("?")[0], error });
		if (response.headersSent) return void response.destroy();
		return sendError(request, response, new AppError("INTERNAL_ERROR", `The database is unavailable; retry in a moment (request id ${requestId})`, { status: 503, headers: { "Retry-After": "1" } }));
	}
	logger.error("request failed", { requestId, method: request.method, path: request.url?.split("?")[0], error });
	if (response.headersSent) {
		response.destroy();
		return;
	}
	sendError(request, response, new AppError("INTERNAL_ERROR", `Internal error; quote request id ${requestId} when reporting it`), format);
}

interface ClientErrorAnswer {
	status: number;
	reason: string;
	code: "INVALID_REQUEST" | "PAYLOAD_TOO_LARGE";
	message: string;
}

function clientErrorAnswer(code: string | undefined): ClientErrorAnswer {
	switch (code) {
		case "HPE_HEADER_OVERFLOW":
			return { status: 431, reason: "Request Header Fields Too Large", code: "INVALID_REQUEST", message: "Request headers are too large (16 KiB at most)" };
		case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
			return { status: 413, reason: "Payload Too Large", code: "PAYLOAD_TOO_LARGE", message: "Chunk extensions are too large" };
		case "ERR_HTTP_REQUEST_TIMEOUT":
			return { status: 408, reason: "Request Timeout", code: "INVALID_REQUEST", message: "The request was not received in time (HTTP_REQUEST_TIMEOUT_SECONDS)" };
		default:
			return { status: 400, reason: "Bad Request", code: "INVALID_REQUEST", message: "Malformed HTTP request" };
	}
}

/**
 * The server's `clientError` listener: what Node refuses before there is a request to hand us
 * (headers over its limit, a request line or header it cannot parse, such as a NUL in a header, a
 * request not received within `requestTimeout`) is answered in the spec's envelope instead of
 * Node's bare status line, then the connection is closed. The status stays Node's (431, 408, 400,
 * 413) so HTTP clients and proxies read it as usual; the code is INVALID_REQUEST or
 * PAYLOAD_TOO_LARGE.
 */
export function answerClientError(logger: Logger, error: Error & { code?: string }, socket: Duplex): void {
	// Like Node's default handler: never write into a response already under way, nor to a peer that left.
	const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
	if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
		socket.destroy();
		return;
	}
	const answer = clientErrorAnswer(error.code);
	const requestId = newRequestId();
	logger.debug("request refused by the HTTP parser", { requestId, status: answer.status, reason: error.code ?? error.message });
	const body = JSON.stringify({ code: answer.code, status: answer.status, message: answer.message } satisfies TErrorEnvelope);
	socket.once("finish", () => socket.destroy());
	socket.end(
		`HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
	);
}
