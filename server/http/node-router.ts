import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppRouteMutation, ServerInferRequest } from "@ts-rest/core";
import type { ZodTypeAny } from "zod";
import type { RouteMetadata } from "../../contract/common";
import { REQUEST_BODY_LIMIT_BYTES } from "../../contract/schemas/common";
import { type ApiKeyPrincipal, authenticateApiKey, readBearerToken, requireScope } from "../modules/api-keys/authenticate-api-key";
import { deleteExpiredRateLimitWindows, RequestQuotas, DEFAULT_QUOTAS } from "../modules/quotas/consume-request-quota";
import { AppError, type FieldIssue } from "../shared/app-error";
import type { HttpDependencies } from "./context";
import { answerIdempotently } from "./middleware/idempotency";
import { respondWithError } from "./middleware/errors";
import { assignRequestId } from "./middleware/request-id";
import { zodErrorToFields } from "./validation";

/** Expired rate-limit windows are swept every this many requests. */
const CLEANUP_EVERY_REQUESTS = 1000;

export interface NodeRouteContext<TRoute extends AppRouteMutation> {
	request: IncomingMessage;
	response: ServerResponse;
	requestId: string;
	principal: ApiKeyPrincipal;
	params: ServerInferRequest<TRoute>["params"];
	body: ServerInferRequest<TRoute>["body"];
}

/** A handler answers by writing to `response` (JSON through sendJson, or a stream it pipes). */
export interface NodeRoute<TRoute extends AppRouteMutation = AppRouteMutation> {
	route: TRoute;
	handle(context: NodeRouteContext<TRoute>): Promise<void>;
}

export function nodeRoute<TRoute extends AppRouteMutation>(route: TRoute, handle: (context: NodeRouteContext<TRoute>) => Promise<void>): NodeRoute {
	return { route, handle } as unknown as NodeRoute;
}

interface CompiledRoute {
	method: string;
	pattern: RegExp;
	paramNames: string[];
	definition: NodeRoute;
	metadata: RouteMetadata;
	schemas: { params?: ZodTypeAny; headers?: ZodTypeAny; body?: ZodTypeAny };
}

function compile(definition: NodeRoute): CompiledRoute {
	const { route } = definition;
	const paramNames: string[] = [];
	const source = route.path
		.split("/")
		.map((segment) => {
			if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
			paramNames.push(segment.slice(1));
			return "([^/]+)";
		})
		.join("/");
	const schema = (value: unknown) => (value && typeof (value as ZodTypeAny).safeParse === "function" ? (value as ZodTypeAny) : undefined);
	return {
		method: route.method,
		// Like Express's default (non-strict) routing, one trailing slash is tolerated.
		pattern: new RegExp(`^${source}/?$`),
		paramNames,
		definition,
		metadata: (route.metadata ?? {}) as RouteMetadata,
		schemas: { params: schema(route.pathParams), headers: schema(route.headers), body: "body" in route ? schema(route.body) : undefined },
	};
}

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/** Content-Type and charset as Express's json parser accepted them: application/json or application/<x>+json, in UTF-8. */
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
function readJsonBody(request: IncomingMessage): Promise<unknown> {
	const declared = request.headers["content-length"];
	if (request.headers["transfer-encoding"] === undefined && !(Number(declared) > 0)) {
		return Promise.reject(new AppError("INVALID_REQUEST", "This endpoint needs a JSON object body"));
	}
	checkContentType(request);
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

function validate(route: CompiledRoute, request: IncomingMessage, params: Record<string, string>, body: unknown) {
	const fields: FieldIssue[] = [];
	const parse = (schema: ZodTypeAny | undefined, value: unknown, root: string) => {
		if (!schema) return value;
		const result = schema.safeParse(value);
		if (result.success) return result.data;
		fields.push(...zodErrorToFields(result.error, root));
		return undefined;
	};
	const parsedParams = parse(route.schemas.params, params, "path");
	parse(route.schemas.headers, request.headers, "headers");
	const parsedBody = parse(route.schemas.body, body, "body");
	if (fields.length > 0) throw AppError.validation(fields);
	return { params: parsedParams, body: parsedBody };
}

/**
 * Contract routes served straight on node:http, for the runtime's hot path: one regex match, the
 * cached API key, the in-memory rate limit, a plain body read and the contract's zod schemas; no
 * Express router, body-parser or ts-rest wrapper in between (their per-request work was most of
 * what a generation cost us). The pipeline is the Express one: request id -> API key and scope
 * (before the body is read) -> rate limit and spend quota -> JSON body -> validation ->
 * Idempotency-Key -> handler, with the same envelopes (middleware/errors.ts).
 * Returns a request listener that answers its routes and hands anything else to `fallback`.
 */
export function createNodeRouter(
	dependencies: HttpDependencies,
	definitions: NodeRoute[],
	fallback: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
	const routes = definitions.map(compile);
	const { orm, logger } = dependencies;
	const em = () => orm.em.fork();
	const quotas = dependencies.requestQuotas ?? new RequestQuotas(dependencies.quotas ?? DEFAULT_QUOTAS);
	let requests = 0;

	const authenticate = async (request: IncomingMessage, scope: RouteMetadata["scope"]): Promise<ApiKeyPrincipal> => {
		const token = readBearerToken(request.headers.authorization);
		const principal = await (dependencies.apiKeys ? dependencies.apiKeys.authenticate(em, token) : authenticateApiKey(em(), token));
		if (scope) requireScope(principal, scope);
		return principal;
	};

	const serve = async (route: CompiledRoute, match: RegExpExecArray, request: IncomingMessage, response: ServerResponse, requestId: string) => {
		const principal = await authenticate(request, route.metadata.scope);
		if (++requests % CLEANUP_EVERY_REQUESTS === 0) {
			deleteExpiredRateLimitWindows(em()).catch((error) => logger.warn("rate-limit cleanup failed", { error }));
		}
		// Most requests are decided in memory: no promise, no extra turn of the event loop.
		const pending = quotas.consume(em, { apiKeyId: principal.apiKeyId, workspaceId: principal.workspaceId });
		if (pending) await pending;
		const rawParams: Record<string, string> = {};
		route.paramNames.forEach((name, index) => {
			try {
				rawParams[name] = decodeURIComponent(match[index + 1]);
			} catch {
				throw AppError.validation([{ field: `path.${name}`, issue: "Malformed percent-encoding" }]);
			}
		});
		const rawBody = route.schemas.body ? await readJsonBody(request) : undefined;
		const { params, body } = validate(route, request, rawParams, rawBody);
		const key = request.headers["idempotency-key"];
		if (route.metadata.idempotent && typeof key === "string") {
			const path = (request.url ?? "").split("?")[0];
			const input = { requestId, workspaceId: principal.workspaceId, key, method: route.method, path, body };
			if (await answerIdempotently(dependencies, input, response)) return;
		}
		await route.definition.handle({ request, response, requestId, principal, params: params as never, body: body as never });
	};

	return (request, response) => {
		const url = request.url ?? "/";
		const queryAt = url.indexOf("?");
		const path = queryAt === -1 ? url : url.slice(0, queryAt);
		for (const route of routes) {
			if (route.method !== request.method) continue;
			const match = route.pattern.exec(path);
			if (!match) continue;
			const requestId = assignRequestId(request, response);
			serve(route, match, request, response, requestId).catch((error) => respondWithError(logger, requestId, request, response, error));
			return;
		}
		fallback(request, response);
	};
}
