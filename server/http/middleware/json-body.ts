import type { IncomingMessage } from "node:http";
import type { BodyLimit } from "../../../contract/common";
import { findUnstorableText, REQUEST_BODY_LIMIT_BYTES } from "../../../contract/schemas/common";
import { decodeBase64 } from "../../knowledge/document-types";
import { AppError } from "../../shared/app-error";
import { sha256Hex } from "../../shared/crypto";
import { discardRestOfBody } from "./errors";

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/** JSON only: application/json or application/<x>+json, in UTF-8, uncompressed. */
function checkContentType(request: IncomingMessage): void {
	const [type, ...parameters] = (request.headers["content-type"] ?? "").split(";");
	if (!JSON_CONTENT_TYPE.test(type.trim().toLowerCase())) throw new AppError("INVALID_REQUEST", "Content-Type must be application/json");
	for (const parameter of parameters) {
		const [name, value = ""] = parameter.split("=");
		if (name.trim().toLowerCase() === "charset" && !/^"?utf-?8"?$/i.test(value.trim())) {
			throw new AppError("INVALID_REQUEST", `Unsupported charset "${value.trim()}": send UTF-8`);
		}
	}
	const encoding = request.headers["content-encoding"];
	if (encoding && encoding.toLowerCase() !== "identity") throw new AppError("INVALID_REQUEST", `Content-Encoding "${encoding}" is not supported; send the body uncompressed`);
}

/**
 * The body as JSON, read within REQUEST_BODY_LIMIT_BYTES or the route's own limit. Past it: 413,
 * or the route's 400 on its large field, whose rest is then discarded (never kept) so the client
 * reads the answer.
 */
export function readJsonBody(request: IncomingMessage, routeLimit?: BodyLimit): Promise<unknown> {
	return readBodyBytes(request, routeLimit).then(parseJsonBody);
}

/** The body's bytes, read within the limits readJsonBody describes, its content type checked. */
export function readBodyBytes(request: IncomingMessage, routeLimit?: BodyLimit): Promise<Buffer> {
	const limitBytes = routeLimit?.readBytes ?? REQUEST_BODY_LIMIT_BYTES;
	const declared = request.headers["content-length"];
	if (request.headers["transfer-encoding"] === undefined && !(Number(declared) > 0)) {
		return Promise.reject(new AppError("INVALID_REQUEST", "This endpoint needs a JSON object body"));
	}
	try {
		checkContentType(request);
	} catch (error) {
		return Promise.reject(error);
	}
	const tooLarge = (bytes: number) => {
		// A chunked body's size is unknown when it passes the limit: it may still be a file the field could name.
		if (routeLimit && (Number.isNaN(bytes) || bytes <= routeLimit.refuseAsFieldBytes)) {
			discardRestOfBody(request, routeLimit.refuseAsFieldBytes);
			return AppError.validation([{ field: routeLimit.field, issue: routeLimit.issue }], `${routeLimit.field} is too large`);
		}
		return new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds the ${routeLimit?.refuseAsFieldBytes ?? limitBytes}-byte limit`);
	};
	if (Number(declared) > limitBytes) return Promise.reject(tooLarge(Number(declared)));
	// A declared length: the bytes are copied into one buffer of that size as they arrive, a chunk
	// at a time, rather than in one copy at the end (18 ms for a 7 MB upload's body on this loop).
	const expected = Number(declared);
	const whole = Number.isInteger(expected) && expected > 0 && expected <= limitBytes ? Buffer.allocUnsafeSlow(expected) : undefined;
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			if (size + chunk.length > limitBytes) {
				cleanup();
				reject(tooLarge(declared === undefined ? Number.NaN : Number(declared)));
				return;
			}
			// Node's parser ends a body at its Content-Length: a chunk never runs past `whole`.
			if (whole) chunk.copy(whole, size);
			else chunks.push(chunk);
			size += chunk.length;
		};
		const onEnd = () => {
			cleanup();
			if (whole) resolve(size === whole.length ? whole : whole.subarray(0, size));
			else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
		};
		const onAborted = () => {
			cleanup();
			reject(new AppError("INVALID_REQUEST", "Request body was cut short"));
		};
		const cleanup = () => {
			request.off("data", onData);
			request.off("end", onEnd);
			request.off("aborted", onAborted);
			request.off("error", onAborted);
		};
		request.on("data", onData);
		request.on("end", onEnd);
		request.on("aborted", onAborted);
		request.on("error", onAborted);
	});
}

/** UTF-8 JSON, strict as Express's parser was: an object or an array at the top, nothing else. */
export function parseJsonBody(bytes: Buffer): unknown {
	const text = bytes.toString("utf8");
	const first = text.trimStart()[0];
	try {
		if (first !== "{" && first !== "[") throw new SyntaxError("not an object");
		return JSON.parse(text);
	} catch {
		throw new AppError("INVALID_REQUEST", "Request body is not valid JSON");
	}
}

/** A body's base64 field, decoded where the body was parsed; the body then holds "" in its place. */
export interface DecodedBase64Field {
	field: string;
	/** null: the text was not base64. */
	bytes: Buffer | null;
	/** SHA-256 of the field's text, as sent: what the Idempotency-Key's fingerprint counts in its place. */
	sha256: string;
}

/**
 * parseJsonBody, then the string at `field` of the top-level object decoded from base64 and
 * replaced by "": for a route whose body is mostly one file (a direct upload), run on the body
 * thread (body-thread.ts), so that neither the megabytes of text nor their decoding reach the API's
 * event loop. A field that is not a string, or holds text the database could not store (which
 * validation names as such), is left as it is.
 */
export function parseJsonBodyDecodingBase64(bytes: Buffer, field: string): { value: unknown; decoded?: DecodedBase64Field } {
	const value = parseJsonBody(bytes);
	if (!value || typeof value !== "object" || Array.isArray(value)) return { value };
	const text = (value as Record<string, unknown>)[field];
	if (typeof text !== "string" || findUnstorableText(text).length > 0) return { value };
	(value as Record<string, unknown>)[field] = "";
	return { value, decoded: { field, bytes: decodeBase64(text), sha256: sha256Hex(text) } };
}
