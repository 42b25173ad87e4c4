/**
 * The body thread (body-thread.ts): parses a large body and decodes its base64 field, off the
 * API's event loop. Built as its own entry point (scripts/build.ts: dist/body-thread.js); run from
 * source under tsx in tests.
 */
import { parentPort } from "node:worker_threads";
import { AppError } from "../shared/app-error";
import { type BodyReply, type BodyRequest, movableCopyOf } from "./body-thread";
import { parseJsonBodyDecodingBase64 } from "./middleware/json-body";

parentPort?.on("message", ({ id, bytes, field }: BodyRequest) => {
	let reply: BodyReply;
	const transfer: ArrayBuffer[] = [];
	try {
		const { value, decoded } = parseJsonBodyDecodingBase64(Buffer.from(bytes), field);
		let decodedBytes: ArrayBuffer | null = null;
		if (decoded?.bytes) {
			decodedBytes = movableCopyOf(decoded.bytes);
			transfer.push(decodedBytes);
		}
		reply = { id, value, decoded: decoded && { field: decoded.field, bytes: decodedBytes, sha256: decoded.sha256 } };
	} catch (error) {
		reply = { id, invalid: error instanceof AppError ? error.message : "Request body is not valid JSON" };
	}
	parentPort?.postMessage(reply, transfer);
});
