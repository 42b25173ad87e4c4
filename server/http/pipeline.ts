import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppRoute, ServerInferRequest, ServerInferResponses } from "@ts-rest/core";
import type { ZodTypeAny } from "zod";
import type { RouteMetadata, Scope } from "../../contract/common";
import { readBearerToken, requireScope } from "../modules/api-keys/authenticate-api-key";
import { recordAuditEvent, resolveAuditScope } from "../modules/audit/record-audit-event";
import { createUseCaseContext, type PlatformServices, type UseCaseContext } from "../modules/platform-services";
import { deleteExpiredRateLimitWindows, type RequestBudget } from "../modules/quotas/consume-request-quota";
import { AppError, type FieldIssue } from "../shared/app-error";
import type { ApiKeyPrincipal } from "../shared/principal";
import { answerIdempotently } from "./middleware/idempotency";
import type { BodyThread } from "./body-thread";
import { type DecodedBase64Field, readBodyBytes, readJsonBody } from "./middleware/json-body";
import { sendJson } from "./middleware/errors";
import { assignRequestId } from "./middleware/request-id";
import { unstorableTextFields, zodErrorToFields } from "../shared/request-fields";
import { authenticateSession, type LiveSession } from "../modules/sessions/authenticate-session";
import { isValidCsrfToken } from "../modules/sessions/csrf-token";
import { clearSessionCookie, isSameOrigin, readSessionCookie } from "./middleware/session-cookie";

/** Expired rate-limit windows are swept every this many quota-checked requests. */
const CLEANUP_EVERY_REQUESTS = 1000;

/** What a handler answers with: a JSON response, or `ANSWERED` when it wrote the response itself (SSE). */
export const ANSWERED: unique symbol = Symbol("answered");
export type HandlerResult = { status: number; body: unknown } | typeof ANSWERED;

/** What a route's handler receives once the pipeline has authenticated, validated and claimed. */
export interface RouteCall {
	request: IncomingMessage;
	response: ServerResponse;
	requestId: string;
	/** The use-case context for the caller; for public routes, the services alone. */
	context: UseCaseContext;
	/** Management routes: the signed-in session the request came with. */
	session?: LiveSession;
	params: Record<string, unknown>;
	query: Record<string, unknown>;
	body: unknown;
	/** Routes whose body carries a file as base64 (metadata.bodyLimit): that field decoded off the event loop; the body holds "" in its place. */
	decodedBase64?: DecodedBase64Field;
}

export interface RouteDefinition {
	route: AppRoute;
	handle(call: RouteCall): Promise<HandlerResult>;
}

/** A contract route prepared once: its schemas and metadata looked up at start, not per request. */
export interface CompiledRoute {
	definition: RouteDefinition;
	metadata: RouteMetadata;
	schemas: { params?: ZodTypeAny; query?: ZodTypeAny; headers?: ZodTypeAny; body?: ZodTypeAny };
	/**
	 * The key's request budget the route counts against: every authenticated route has one. The
	 * runtime's also answers for the workspace's spend quota.
	 */
	budget?: RequestBudget;
	/** Changes made through the API are audited; generations are traced instead (server/modules/traces). */
	audited: boolean;
}

/** The state a request accumulates as it passes the steps. */
export interface Exchange {
	route: CompiledRoute;
	request: IncomingMessage;
	response: ServerResponse;
	requestId: string;
	path: string;
	/** Path parameters as they appear in the URL, still percent-encoded (decoded by the validate step). */
	rawParams: Record<string, string>;
	principal?: ApiKeyPrincipal;
	session?: LiveSession;
	context?: UseCaseContext;
	rawBody?: unknown;
	decodedBase64?: DecodedBase64Field;
	params: Record<string, unknown>;
	query: Record<string, unknown>;
	body?: unknown;
	result?: HandlerResult;
}

/** A step either finishes synchronously (undefined) or returns a promise; `ANSWERED` ends the request there. */
type Step = (exchange: Exchange, services: PlatformServices, state: PipelineState) => void | typeof ANSWERED | Promise<void | typeof ANSWERED>;

interface PipelineState {
	meteredRequests: number;
	bodies: BodyThread;
}

const schemaOf = (value: unknown) => (value && typeof (value as ZodTypeAny).safeParse === "function" ? (value as ZodTypeAny) : undefined);

export function compileRoute(definition: RouteDefinition): CompiledRoute {
	const { route } = definition;
	const metadata = (route.metadata ?? {}) as RouteMetadata;
	return {
		definition,
		metadata,
		schemas: {
			params: schemaOf(route.pathParams),
			query: schemaOf(route.query),
			headers: schemaOf(route.headers),
			body: "body" in route ? schemaOf(route.body) : undefined,
		},
		budget: budgetOf(metadata.scope),
		// Changes through the API, and every change a person makes in the dashboard.
		audited: (metadata.session === "required" || (metadata.scope !== undefined && metadata.scope !== "runtime:execute")) && route.method !== "GET",
	};
}

function budgetOf(scope: Scope | undefined): RequestBudget | undefined {
	if (scope === undefined) return undefined;
	return scope === "runtime:execute" ? "runtime" : "knowledge";
}

/**
 * Every contract route's pipeline, in order, readable as a table. Credentials are checked before
 * the body is read (a stranger never gets a body parsed), the quota before any work, the
 * Idempotency-Key after validation (an invalid body never claims a key).
 */
export const PIPELINE: readonly (readonly [name: string, step: Step])[] = [
	["request id", assignRequestIdStep],
	["authenticate", authenticate],
	["scope", checkScope],
	["quota", consumeQuota],
	["body", readBody],
	["validate", validate],
	["idempotency", claimIdempotencyKey],
	["handler", runHandler],
	["audit", audit],
];

/** Runs the steps; the caller answers any thrown error with the envelope (middleware/errors.ts). */
export async function runPipeline(exchange: Exchange, services: PlatformServices, state: PipelineState): Promise<void> {
	for (const [, step] of PIPELINE) {
		let outcome = step(exchange, services, state);
		// Most steps finish synchronously on the hot path: no promise, no extra turn of the event loop.
		if (outcome instanceof Promise) outcome = await outcome;
		if (outcome === ANSWERED) return;
	}
}

export function createPipelineState(bodies: BodyThread): PipelineState {
	return { meteredRequests: 0, bodies };
}

function assignRequestIdStep(exchange: Exchange): void {
	exchange.requestId = assignRequestId(exchange.request, exchange.response);
}

function authenticate(exchange: Exchange, services: PlatformServices): void | Promise<void> {
	if (exchange.route.metadata.session) return authenticateDashboardSession(exchange, services);
	const scope = exchange.route.metadata.scope;
	if (!scope) {
		exchange.context = createUseCaseContext(services, { kind: "operator" });
		return;
	}
	const token = readBearerToken(exchange.request.headers.authorization);
	return services.apiKeys
		.authenticate(() => services.orm.em.fork(), token)
		.then((principal) => {
			exchange.principal = principal;
			exchange.context = createUseCaseContext(services, principal);
		});
}

/**
 * Management routes: the session cookie, checked on every request against PostgreSQL (a session
 * ended or expired anywhere is refused here at once), and for writes the CSRF token and the
 * Origin. A refused cookie is cleared, so the browser stops sending it.
 */
async function authenticateDashboardSession(exchange: Exchange, services: PlatformServices): Promise<void> {
	const { request, response } = exchange;
	const { publicBaseUrl } = services.settings;
	const writes = request.method !== "GET" && request.method !== "HEAD";
	if (writes && !isSameOrigin(request, publicBaseUrl)) throw new AppError("FORBIDDEN", "A change requested from another site was refused");
	if (exchange.route.metadata.session === "sign-in") {
		exchange.context = createUseCaseContext(services, { kind: "operator" });
		return;
	}
	const token = readSessionCookie(request, publicBaseUrl);
	if (!token) throw new AppError("UNAUTHENTICATED", "Sign in to continue");
	const session = await authenticateSession(createUseCaseContext(services, { kind: "operator" }), { token });
	if (!session) {
		clearSessionCookie(response, publicBaseUrl);
		throw new AppError("UNAUTHENTICATED", "Your session has ended; sign in again");
	}
	if (writes) {
		const presented = request.headers["x-csrf-token"];
		if (!isValidCsrfToken(services.secrets, session.tokenHash, typeof presented === "string" ? presented : undefined)) {
			throw new AppError("FORBIDDEN", "This change was refused: it did not come with this session's CSRF token. Reload the page and try again");
		}
	}
	exchange.session = session;
	exchange.context = createUseCaseContext(services, { kind: "session", userId: session.userId, sessionId: session.sessionId });
}

function checkScope(exchange: Exchange): void {
	const scope: Scope | undefined = exchange.route.metadata.scope;
	if (scope && exchange.principal) requireScope(exchange.principal, scope);
}

function consumeQuota(exchange: Exchange, services: PlatformServices, state: PipelineState): void | Promise<void> {
	const principal = exchange.principal;
	const budget = exchange.route.budget;
	if (!budget || !principal) return;
	if (++state.meteredRequests % CLEANUP_EVERY_REQUESTS === 0) {
		deleteExpiredRateLimitWindows(services.orm.em.fork()).catch((error) => services.logger.warn("rate-limit cleanup failed", { error }));
	}
	// Most requests are decided in memory: undefined, no promise.
	try {
		return services.quotas.consume(() => services.orm.em.fork(), { apiKeyId: principal.apiKeyId, workspaceId: principal.workspaceId, budget })?.catch((error: unknown) => {
			throw countRefusal(error, services);
		});
	} catch (error) {
		throw countRefusal(error, services);
	}
}

/** A rate-limit or spend-quota refusal, counted by kind (quota_refusals_total); the error passes through unchanged. */
function countRefusal(error: unknown, services: PlatformServices): unknown {
	if (error instanceof AppError && error.code === "RATE_LIMITED") services.observability.metrics.recordRefusal("rate_limit");
	if (error instanceof AppError && error.code === "COST_QUOTA_EXCEEDED") services.observability.metrics.recordRefusal("spend_quota");
	return error;
}

function readBody(exchange: Exchange, _services: PlatformServices, state: PipelineState): void | Promise<void> {
	if (!exchange.route.schemas.body) return;
	const { bodyLimit } = exchange.route.metadata;
	if (bodyLimit) {
		return readBodyBytes(exchange.request, bodyLimit)
			.then((bytes) => state.bodies.parseDecodingBase64(bytes, bodyLimit.field))
			.then(({ value, decoded }) => {
				exchange.rawBody = value;
				exchange.decodedBase64 = decoded;
			});
	}
	return readJsonBody(exchange.request).then((body) => {
		exchange.rawBody = body;
	});
}

function validate(exchange: Exchange): void {
	const { schemas } = exchange.route;
	const fields: FieldIssue[] = [];
	const parse = (schema: ZodTypeAny | undefined, value: unknown, root: string) => {
		if (!schema) return value;
		const result = schema.safeParse(value);
		if (result.success) return result.data;
		fields.push(...zodErrorToFields(result.error, root));
		return undefined;
	};
	const decoded: Record<string, string> = {};
	for (const [name, value] of Object.entries(exchange.rawParams)) {
		try {
			decoded[name] = decodeURIComponent(value);
		} catch {
			fields.push({ field: `path.${name}`, issue: "Malformed percent-encoding" });
		}
	}
	const query = schemas.query ? parseQuery(exchange.request.url ?? "") : {};
	// Text the database cannot store is refused wherever it stands, whatever the schemas say (validation.ts).
	fields.push(...unstorableTextFields(decoded, "path"), ...unstorableTextFields(query, "query"), ...unstorableTextFields(exchange.rawBody, "body"));
	exchange.params = parse(schemas.params, decoded, "path") as Record<string, unknown>;
	exchange.query = parse(schemas.query, query, "query") as Record<string, unknown>;
	parse(schemas.headers, exchange.request.headers, "headers");
	exchange.body = parse(schemas.body, exchange.rawBody, "body");
	if (fields.length > 0) throw AppError.validation(fields);
}

/** `?a=1&b=x` -> {a: "1", b: "x"}; a repeated name keeps its last value (the contract's query schemas take single values). */
function parseQuery(url: string): Record<string, string> {
	const queryAt = url.indexOf("?");
	if (queryAt === -1) return {};
	const query: Record<string, string> = {};
	for (const [name, value] of new URLSearchParams(url.slice(queryAt + 1))) query[name] = value;
	return query;
}

async function claimIdempotencyKey(exchange: Exchange, services: PlatformServices): Promise<void | typeof ANSWERED> {
	const key = exchange.request.headers["idempotency-key"];
	if (!exchange.route.metadata.idempotent || typeof key !== "string" || !exchange.principal) return;
	// A decoded field counts by the digest of its text: the same file sent again is the same request.
	const decoded = exchange.decodedBase64;
	const body = decoded && exchange.body && typeof exchange.body === "object" ? { ...exchange.body, [decoded.field]: `sha256:${decoded.sha256}` } : exchange.body;
	const input = { requestId: exchange.requestId, workspaceId: exchange.principal.workspaceId, key, method: exchange.route.definition.route.method, path: exchange.path, body };
	if (await answerIdempotently(services, input, exchange.response)) return ANSWERED;
}

async function runHandler(exchange: Exchange): Promise<void> {
	const result = await exchange.route.definition.handle({
		request: exchange.request,
		response: exchange.response,
		requestId: exchange.requestId,
		context: exchange.context as UseCaseContext,
		session: exchange.session,
		params: exchange.params,
		query: exchange.query,
		body: exchange.body,
		decodedBase64: exchange.decodedBase64,
	});
	exchange.result = result;
	if (result !== ANSWERED) sendJson(exchange.response, result.status, result.body);
}

function audit(exchange: Exchange, services: PlatformServices): void {
	if (!exchange.route.audited || !exchange.context || exchange.result === undefined) return;
	const status = exchange.result === ANSWERED ? exchange.response.statusCode : exchange.result.status;
	const context = exchange.context;
	// Off the response path: an audit row must never delay or fail the answer it describes. A
	// dashboard change is filed under the workspace or organization its path names, once the person reaches it.
	const filed = context.principal.kind === "session" ? resolveAuditScope(context, exchange.params) : Promise.resolve({});
	filed
		.then((scope) =>
			recordAuditEvent(context, {
				action: exchange.route.metadata.operationId,
				outcome: status < 400 ? "success" : "failure",
				...scope,
				details: { requestId: exchange.requestId, status, params: exchange.params },
			}),
		)
		.catch((error) => services.logger.error("audit event not recorded", { requestId: exchange.requestId, error }));
}

type Inferred<TRoute extends AppRoute> = ServerInferRequest<TRoute>;

/** A RouteCall typed by the contract route: params, query and body as its zod schemas parse them. */
export interface TypedRouteCall<TRoute extends AppRoute> extends Omit<RouteCall, "params" | "query" | "body"> {
	params: Inferred<TRoute> extends { params: infer P } ? P : Record<string, never>;
	query: Inferred<TRoute> extends { query: infer Q } ? Q : Record<string, never>;
	body: Inferred<TRoute> extends { body: infer B } ? B : undefined;
}

/** The responses a route may answer with, as its contract declares them (2xx; errors are thrown AppErrors). */
export type TypedResult<TRoute extends AppRoute> = Extract<ServerInferResponses<TRoute>, { status: 200 | 201 | 202 | 204 }> | typeof ANSWERED;

/** Binds a handler to its contract route, type-checked against the contract's schemas. */
export function contractRoute<TRoute extends AppRoute>(route: TRoute, handle: (call: TypedRouteCall<TRoute>) => Promise<TypedResult<TRoute>>): RouteDefinition {
	return { route, handle: handle as unknown as RouteDefinition["handle"] };
}
