import type { IncomingMessage } from "node:http";
import type { BodyLimit } from "../../../contract/common";
import { REQUEST_BODY_LIMIT_BYTES } from "../../../contract/schemas/common";
import { AppError } from "../../shared/app-error";
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
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > limitBytes) {
				cleanup();
				reject(tooLarge(declared === undefined ? Number.NaN : Number(declared)));
				return;
			}
			chunks.push(chunk);
		};
		const onEnd = () => {
			cleanup();
			const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
			// Strict, as Express's parser was: an object or an array at the top, nothing else.
			const first = text.trimStart()[0];
			try {
				if (first !== "{" && first !== "[") throw new SyntaxError("not an object");
				resolve(JSON.parse(text));
			} catch {
				reject(new AppError("INVALID_REQUEST", "Request body is not valid JSON"));
			}
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
