import type { IncomingMessage, ServerResponse } from "node:http";
import { recordAuditEvent } from "../modules/audit/record-audit-event";
import type { PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { renderErrorPage } from "../oauth/pages/error-page";
import { sendPage } from "../oauth/pages/forms";
import { respondWithError, sendError } from "./middleware/errors";
import { assignRequestId } from "./middleware/request-id";
import type { BodyThread } from "./body-thread";
import { compileRoute, createPipelineState, type Exchange, type RouteDefinition, runPipeline } from "./pipeline";
import type { RawRoute } from "./raw-route";
import type { RequestTrace } from "../observability/tracing-types";

const OPENAI_COMPATIBLE_PREFIX = "/v1/";

interface MatchedRoute {
	method: string;
	pattern: RegExp;
	paramNames: string[];
	compiled: ReturnType<typeof compileRoute>;
	/** The contract's path, `:name` for each parameter: the metrics' and access log's route label. */
	template: string;
}

function matcherOf(definition: RouteDefinition): MatchedRoute {
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
	// Like Express's default (non-strict) routing, one trailing slash is tolerated.
	return { method: route.method, pattern: new RegExp(`^${source}/?$`), paramNames, compiled: compileRoute(definition), template: route.path };
}

/**
 * The server's one route table: every contract route (the runtime's hot path, knowledge, health,
 * the dashboard's management API) through the one pipeline (pipeline.ts), then the routes outside
 * the contract in order (the authorization server and its pages, /mcp, presigned-upload PUTs, the
 * dashboard's pages and assets), then 404 in the envelope. One matcher, one place where a request
 * gets its id and its failures their answer.
 */
export function createRouter(
	services: PlatformServices,
	bodies: BodyThread,
	definitions: RouteDefinition[],
	rawRoutes: readonly RawRoute[],
): (request: IncomingMessage, response: ServerResponse) => void {
	const routes = definitions.map(matcherOf);
	const state = createPipelineState(bodies);
	const { logger } = services;
	const observe = observeRequests(services);
	const { tracing } = services.observability;

	const fail = (exchange: Exchange, error: unknown) => {
		respondWithError(logger, exchange.requestId, exchange.request, exchange.response, error, exchange.route.metadata.errorFormat ?? "envelope");
		if (exchange.route.audited && exchange.context) {
			recordAuditEvent(exchange.context, {
				action: exchange.route.metadata.operationId,
				outcome: error instanceof AppError && error.status === 403 ? "denied" : "failure",
				details: { requestId: exchange.requestId, status: exchange.response.statusCode, code: error instanceof AppError ? error.code : "INTERNAL_ERROR" },
			}).catch((auditError) => logger.error("audit event not recorded", { requestId: exchange.requestId, error: auditError }));
		}
	};

	const failRaw = (route: RawRoute, requestId: string, request: IncomingMessage, response: ServerResponse, path: string, error: unknown) => {
		if (route.errors === "envelope" || response.headersSent) return respondWithError(logger, requestId, request, response, error);
		logger.error("page failed", { requestId, route: route.name, path, error });
		sendPage(response, 500, renderErrorPage({ title: "Something went wrong", message: `This page failed on our side. Try again; if it keeps failing, quote ${requestId} to your administrator.` }));
	};

	return (request, response) => {
		const url = request.url ?? "/";
		const queryAt = url.indexOf("?");
		const path = queryAt === -1 ? url : url.slice(0, queryAt);
		const method = request.method ?? "GET";
		for (const route of routes) {
			if (route.method !== method) continue;
			const match = route.pattern.exec(path);
			if (!match) continue;
			const rawParams: Record<string, string> = {};
			route.paramNames.forEach((name, index) => {
				rawParams[name] = match[index + 1];
			});
			const exchange: Exchange = { route: route.compiled, request, response, requestId: "", path, rawParams, params: {}, query: {} };
			const traced = observe(request, response, route.template, exchange);
			const run = () => runPipeline(exchange, services, state).catch((error) => fail(exchange, error));
			if (traced && tracing) tracing.run(traced, run);
			else run();
			return;
		}
		const requestId = assignRequestId(request, response);
		for (const route of rawRoutes) {
			if (!route.matches(path, method)) continue;
			const traced = observe(request, response, route.name, { requestId });
			const run = () => {
				try {
					const handled = route.handle({ request, response, path, requestId });
					if (handled instanceof Promise) handled.catch((error) => failRaw(route, requestId, request, response, path, error));
				} catch (error) {
					failRaw(route, requestId, request, response, path, error);
				}
			};
			if (traced && tracing) tracing.run(traced, run);
			else run();
			return;
		}
		observe(request, response, "unmatched", { requestId });
		// Under /v1, the OpenAI-compatible surface, clients read OpenAI's error shape.
		sendError(request, response, new AppError("NOT_FOUND", `No route for ${method} ${path}`), path.startsWith(OPENAI_COMPATIBLE_PREFIX) ? "openai" : "envelope");
	};
}

/** What the access log may say about who called: ids, never a key, a token or a body. */
interface ObservedCaller {
	requestId: string;
	principal?: Exchange["principal"];
	session?: Exchange["session"];
}

/**
 * Each answered request, once its response is done (or its client gone: status 499, as nginx
 * logs it): counted and timed by route template in the metrics, and one access-log line at info
 * when ACCESS_LOG is on. The route is the table's template (`/knowledge/sources/:id`) or a raw
 * route's name, so neither a label nor a log field ever holds an id from the path.
 */
function observeRequests(services: PlatformServices): (request: IncomingMessage, response: ServerResponse, route: string, caller: ObservedCaller) => RequestTrace | undefined {
	const { metrics, options, tracing } = services.observability;
	const { logger } = services;
	// Nothing to record (no metrics listener or token, no access log, no tracing): not even a listener per response.
	if (!metrics.recording && !options.accessLog && !tracing) return () => undefined;
	return (request, response, route, caller) => {
		const started = performance.now();
		// OpenTelemetry off (no endpoint): nothing but this null check.
		const traced = tracing?.startRequest(request, route);
		// `on`, not `once`: "close" comes once per response, and `once` wraps the listener in one more closure.
		response.on("close", () => {
			const seconds = (performance.now() - started) / 1000;
			const status = response.writableFinished ? response.statusCode : 499;
			const method = request.method ?? "GET";
			metrics.recordHttpRequest(route, method, status, seconds);
			traced?.end(status);
			if (!options.accessLog) return;
			const principal = caller.principal;
			logger.info("request", {
				requestId: caller.requestId,
				method,
				route,
				status,
				durationMs: Math.round(seconds * 1e4) / 10,
				...(principal ? { apiKeyId: principal.apiKeyId, workspaceId: principal.workspaceId } : {}),
				...(caller.session ? { userId: caller.session.userId } : {}),
			});
		});
		return traced;
	};
}
