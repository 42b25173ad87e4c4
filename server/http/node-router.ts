import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppRouteMutation, ServerInferRequest } from "@ts-rest/core";
import type { ZodTypeAny } from "zod";
import type { RouteMetadata, Scope } from "../../contract/common";
import type { ApiKeyPrincipal } from "../modules/api-keys/authenticate-api-key";
import { deleteExpiredRateLimitWindows, RequestQuotas, DEFAULT_QUOTAS } from "../modules/quotas/consume-request-quota";
import { AppError, type FieldIssue } from "../shared/app-error";
import type { HttpDependencies } from "./context";
import { answerIdempotently } from "./middleware/idempotency";
import { respondWithError } from "./middleware/errors";
import { assignRequestId } from "./middleware/request-id";
import { readJsonBody } from "./middleware/json-body";
import { authenticateRequest } from "./middleware/authenticate";
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
	metadata: RouteMetadata & { scope: Scope };
	schemas: { params?: ZodTypeAny; headers?: ZodTypeAny; body?: ZodTypeAny };
}

function compile(definition: NodeRoute): CompiledRoute {
	const { route } = definition;
	const metadata = (route.metadata ?? {}) as RouteMetadata;
	// Every route here takes an API key; one without a scope would be open to anyone.
	if (!metadata.scope) throw new Error(`${route.method} ${route.path} has no scope in the contract`);
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
		metadata: { ...metadata, scope: metadata.scope },
		schemas: { params: schema(route.pathParams), headers: schema(route.headers), body: "body" in route ? schema(route.body) : undefined },
	};
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

	const serve = async (route: CompiledRoute, match: RegExpExecArray, path: string, request: IncomingMessage, response: ServerResponse, requestId: string) => {
		const principal = await authenticateRequest(dependencies, request.headers.authorization, route.metadata.scope);
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
			serve(route, match, path, request, response, requestId).catch((error) => respondWithError(logger, requestId, request, response, error));
			return;
		}
		fallback(request, response);
	};
}
