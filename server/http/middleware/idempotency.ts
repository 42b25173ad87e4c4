import type { ServerResponse } from "node:http";
import {
	claimIdempotencyKey,
	completeIdempotencyKey,
	hashIdempotentRequest,
	releaseIdempotencyKey,
} from "../../modules/idempotency/idempotency-records";
import type { PlatformServices } from "../../modules/platform-services";

/**
 * Headers worth replaying; the rest (dates, request ids, lengths) belong to the replaying response.
 * A generation's ids name the generation that ran, as its replayed body does.
 */
const REPLAYED_HEADERS = ["content-type", "retry-after", "cache-control", "x-accel-buffering", "x-trace-id", "x-assistant-version", "x-assistant-environment"];

export interface IdempotentRequest {
	requestId: string;
	workspaceId: string;
	key: string;
	method: string;
	path: string;
	body: unknown;
}

/**
 * `Idempotency-Key`: claims the key for this workspace, or replays the answer stored for it.
 * Returns true when the response has been answered (a replay). Otherwise the response is captured
 * as it is written, SSE included. Only successes are stored (Stripe's rule: a request that did not
 * succeed is not "done"): an error, a stream that ended in an `error` event, or a response cut off
 * by the client releases the key, so the caller's retry really runs, e.g. once the missing
 * credential has been added.
 */
export async function answerIdempotently({ orm, logger }: Pick<PlatformServices, "orm" | "logger">, request: IdempotentRequest, response: ServerResponse): Promise<boolean> {
	const { requestId, workspaceId, key } = request;
	const claim = await claimIdempotencyKey(orm.em.fork(), { workspaceId, key, requestHash: hashIdempotentRequest(request.method, request.path, request.body) });
	if (claim.kind === "replay") {
		for (const [name, value] of Object.entries(claim.response.headers)) response.setHeader(name, value);
		response.setHeader("Idempotent-Replayed", "true");
		response.statusCode = claim.response.status;
		response.end(claim.response.body);
		return true;
	}
	const { recordId } = claim;
	const chunks: Buffer[] = [];
	const capture = (chunk: unknown, encoding?: unknown) => {
		if (chunk === undefined || chunk === null || typeof chunk === "function") return;
		chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"));
	};
	const write = response.write.bind(response) as (...args: unknown[]) => boolean;
	const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
	response.write = ((chunk: unknown, ...rest: unknown[]) => {
		capture(chunk, rest[0]);
		return write(chunk, ...rest);
	}) as ServerResponse["write"];
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
		const failedStream = String(response.getHeader("content-type") ?? "").startsWith("text/event-stream") && /(^|\n)event: error\n/.test(stored.body);
		const succeeded = response.statusCode < 400 && !failedStream;
		(succeeded ? completeIdempotencyKey(em, recordId, stored) : releaseIdempotencyKey(em, recordId))
			.catch((error) => logger.error("idempotency record not saved", { requestId, error }))
			.finally(() => end(chunk, ...rest));
		return response;
	}) as ServerResponse["end"];
	response.once("close", () => {
		if (settled) return;
		settled = true;
		releaseIdempotencyKey(orm.em.fork(), recordId).catch((error) => logger.error("idempotency key not released", { requestId, error }));
	});
	return false;
}
