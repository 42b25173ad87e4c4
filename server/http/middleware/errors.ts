import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { TErrorEnvelope } from "../../../contract/schemas/common";
import { AppError } from "../../shared/app-error";
import type { Logger } from "../../shared/logger";

/** Past this, a client still sending a rejected body is cut off rather than drained. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** The spec's error envelope; plain node:http, so Express routes and the node router share it. */
export function sendError(request: IncomingMessage, response: ServerResponse, error: AppError): void {
	const envelope: TErrorEnvelope = { code: error.code, status: error.status, message: error.message };
	if (error.fields) envelope.fields = error.fields;
	for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
	drainUnreadBody(request);
	sendJson(response, error.status, envelope);
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	response.statusCode = status;
	response.setHeader("Content-Type", "application/json; charset=utf-8");
	response.setHeader("Content-Length", Buffer.byteLength(text));
	response.end(text);
}

/**
 * Answering while the client is still sending (e.g. a body over the limit) and then closing the
 * socket makes the client see a reset instead of our envelope; reading and discarding the rest
 * lets it finish sending and read the answer.
 */
function drainUnreadBody(request: IncomingMessage): void {
	if (request.complete || request.readableEnded) return;
	let drained = 0;
	request.unpipe();
	request.on("data", (chunk: Buffer) => {
		drained += chunk.length;
		if (drained > MAX_DRAIN_BYTES) request.socket.destroy();
	});
	request.resume();
}

export function notFoundHandler(): RequestHandler {
	return (request, response) => {
		sendError(request, response, new AppError("NOT_FOUND", `No route for ${request.method} ${request.path}`));
	};
}

/**
 * Answers any failure with the envelope. Known errors keep their code and status; anything else is
 * our fault: logged with the request id, and the caller learns nothing internal.
 */
export function respondWithError(logger: Logger, requestId: string, request: IncomingMessage, response: ServerResponse, error: unknown): void {
	const known = error instanceof AppError ? error : undefined;
	if (known) {
		if (known.status >= 500) logger.warn("request failed upstream", { requestId, code: known.code, message: known.message });
		if (response.headersSent) {
			response.destroy();
			return;
		}
		return sendError(request, response, known);
	}
	logger.error("request failed", { requestId, method: request.method, path: request.url?.split("?")[0], error });
	if (response.headersSent) {
		response.destroy();
		return;
	}
	sendError(request, response, new AppError("INTERNAL_ERROR", `Internal error; quote request id ${requestId} when reporting it`));
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
	return (error, request, response, _next) => {
		respondWithError(logger, request.requestId, request, response, error);
	};
}
