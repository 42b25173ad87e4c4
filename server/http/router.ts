import type { IncomingMessage, ServerResponse } from "node:http";
import { recordAuditEvent } from "../modules/audit/record-audit-event";
import type { PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { renderErrorPage } from "../oauth/pages/error-page";
import { sendPage } from "../oauth/pages/forms";
import { respondWithError, sendError } from "./middleware/errors";
import { assignRequestId } from "./middleware/request-id";
import { compileRoute, createPipelineState, type Exchange, type RouteDefinition, runPipeline } from "./pipeline";
import type { RawRoute } from "./raw-route";

const OPENAI_COMPATIBLE_PREFIX = "/v1/";

interface MatchedRoute {
	method: string;
	pattern: RegExp;
	paramNames: string[];
	compiled: ReturnType<typeof compileRoute>;
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
	return { method: route.method, pattern: new RegExp(`^${source}/?$`), paramNames, compiled: compileRoute(definition) };
}

/**
 * The server's one route table: every contract route (the runtime's hot path, knowledge, health,
 * the dashboard's management API) through the one pipeline (pipeline.ts), then the routes outside
 * the contract in order (the authorization server and its pages, /mcp, presigned-upload PUTs, the
 * dashboard's pages and assets), then 404 in the envelope. One matcher, one place where a request
 * gets its id and its failures their answer.
 */
export function createRouter(services: PlatformServices, definitions: RouteDefinition[], rawRoutes: readonly RawRoute[]): (request: IncomingMessage, response: ServerResponse) => void {
	const routes = definitions.map(matcherOf);
	const state = createPipelineState();
	const { logger } = services;

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
			runPipeline(exchange, services, state).catch((error) => fail(exchange, error));
			return;
		}
		const requestId = assignRequestId(request, response);
		for (const route of rawRoutes) {
			if (!route.matches(path, method)) continue;
			try {
				const handled = route.handle({ request, response, path, requestId });
				if (handled instanceof Promise) handled.catch((error) => failRaw(route, requestId, request, response, path, error));
			} catch (error) {
				failRaw(route, requestId, request, response, path, error);
			}
			return;
		}
		// Under /v1, the OpenAI-compatible surface, clients read OpenAI's error shape.
		sendError(request, response, new AppError("NOT_FOUND", `No route for ${method} ${path}`), path.startsWith(OPENAI_COMPATIBLE_PREFIX) ? "openai" : "envelope");
	};
}
