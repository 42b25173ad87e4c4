import type { IncomingMessage } from "node:http";
import { REQUEST_BODY_LIMIT_BYTES } from "../../../contract/schemas/common";
import { AppError } from "../../shared/app-error";

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

/** The body as JSON, read within REQUEST_BODY_LIMIT_BYTES (413 past it, answered after draining). */
export function readJsonBody(request: IncomingMessage): Promise<unknown> {
	const declared = request.headers["content-length"];
	if (request.headers["transfer-encoding"] === undefined && !(Number(declared) > 0)) {
		return Promise.reject(new AppError("INVALID_REQUEST", "This endpoint needs a JSON object body"));
	}
	try {
		checkContentType(request);
	} catch (error) {
		return Promise.reject(error);
	}
	const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds the ${REQUEST_BODY_LIMIT_BYTES}-byte limit`);
	if (Number(declared) > REQUEST_BODY_LIMIT_BYTES) return Promise.reject(tooLarge());
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > REQUEST_BODY_LIMIT_BYTES) {
				cleanup();
				reject(tooLarge());
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
