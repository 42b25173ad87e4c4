import type { NextFunction, Request, Response } from "express";
import type { RouteMetadata } from "../../../contract/common";
import {
	claimIdempotencyKey,
	completeIdempotencyKey,
	hashIdempotentRequest,
	releaseIdempotencyKey,
} from "../../modules/idempotency/idempotency-records";
import type { HttpDependencies } from "../context";

/** Headers worth replaying; the rest (dates, request ids, lengths) belong to the replaying response. */
const REPLAYED_HEADERS = ["content-type", "retry-after", "cache-control", "x-accel-buffering"];

/**
 * `Idempotency-Key` on routes whose contract says `idempotent` (after authentication and body
 * parsing, so it is scoped to the key's workspace and hashes the parsed body). The response is
 * captured as it is written, SSE included, and stored when it ends; a 5xx or a response cut off
 * by the client releases the key instead, so the caller's retry really runs.
 */
export function idempotency({ orm, logger }: HttpDependencies) {
	return async (request: Request, response: Response, next: NextFunction) => {
		const route = (request as Request & { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute;
		const key = request.header("idempotency-key");
		// Over-long keys are left for the contract's header validation to reject.
		if (!route?.metadata?.idempotent || !key || key.length > 255 || !request.principal) return next();
		const workspaceId = request.principal.workspaceId;
		let claim: Awaited<ReturnType<typeof claimIdempotencyKey>>;
		try {
			claim = await claimIdempotencyKey(orm.em.fork(), { workspaceId, key, requestHash: hashIdempotentRequest(request.method, request.path, request.body) });
		} catch (error) {
			return next(error);
		}
		if (claim.kind === "replay") {
			for (const [name, value] of Object.entries(claim.response.headers)) response.setHeader(name, value);
			response.setHeader("Idempotent-Replayed", "true");
			response.status(claim.response.status).end(claim.response.body);
			return;
		}
		const { recordId } = claim;
		const chunks: Buffer[] = [];
		const capture = (chunk: unknown, encoding?: unknown) => {
			if (chunk === undefined || chunk === null || typeof chunk === "function") return;
			chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"));
		};
		const write = response.write.bind(response) as (...args: unknown[]) => boolean;
		const end = response.end.bind(response) as (...args: unknown[]) => Response;
		response.write = ((chunk: unknown, ...rest: unknown[]) => {
			capture(chunk, rest[0]);
			return write(chunk, ...rest);
		}) as Response["write"];
		let settled = false;
		const storedResponse = () => ({
			status: response.statusCode,
			headers: Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (response.hasHeader(name) ? [[name, String(response.getHeader(name))]] : []))),
			body: Buffer.concat(chunks).toString("utf8"),
		});
		// The answer is stored before its last byte leaves, so a caller that has it can replay it at once.
		response.end = ((chunk?: unknown, ...rest: unknown[]) => {
			capture(chunk, rest[0]);
			if (settled) return end(chunk, ...rest);
			settled = true;
			const em = orm.em.fork();
			const stored = storedResponse();
			// A stream that ended in an `error` event failed like a 5xx would have: let a retry run.
			const failedStream = String(response.getHeader("content-type") ?? "").startsWith("text/event-stream") && /(^|\n)event: error\n/.test(stored.body);
			const work = response.statusCode < 500 && !failedStream ? completeIdempotencyKey(em, recordId, stored) : releaseIdempotencyKey(em, recordId);
			work
				.catch((error) => logger.error("idempotency record not saved", { requestId: request.requestId, error }))
				.finally(() => end(chunk, ...rest));
			return response;
		}) as Response["end"];
		// Cut off before the end (client gone, stream destroyed): nothing complete to replay.
		response.once("close", () => {
			if (settled) return;
			settled = true;
			releaseIdempotencyKey(orm.em.fork(), recordId).catch((error) => logger.error("idempotency key not released", { requestId: request.requestId, error }));
		});
		next();
	};
}
