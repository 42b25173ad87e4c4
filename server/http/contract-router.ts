import type { IncomingMessage, ServerResponse } from "node:http";
import type { PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { respondWithError } from "./middleware/errors";
import { compileRoute, createPipelineState, type Exchange, type RouteDefinition, runPipeline } from "./pipeline";
import { recordAuditEvent } from "../modules/audit/record-audit-event";

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
 * Every contract route, served straight on node:http through the one pipeline (pipeline.ts): a
 * regex match per route, then the steps. Anything else (presigned-upload PUTs, OAuth and MCP, the
 * 404) goes to `fallback`, the Express app. The runtime's hot path is a route like the others.
 */
export function createContractRouter(
	services: PlatformServices,
	definitions: RouteDefinition[],
	fallback: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
	const routes = definitions.map(matcherOf);
	const state = createPipelineState();
	const { logger } = services;

	const fail = (exchange: Exchange, error: unknown) => {
		respondWithError(logger, exchange.requestId, exchange.request, exchange.response, error);
		if (exchange.route.audited && exchange.context) {
			recordAuditEvent(exchange.context, {
				action: exchange.route.metadata.operationId,
				outcome: error instanceof AppError && error.status === 403 ? "denied" : "failure",
				details: { requestId: exchange.requestId, status: exchange.response.statusCode, code: error instanceof AppError ? error.code : "INTERNAL_ERROR" },
			}).catch((auditError) => logger.error("audit event not recorded", { requestId: exchange.requestId, error: auditError }));
		}
	};

	return (request, response) => {
		const url = request.url ?? "/";
		const queryAt = url.indexOf("?");
		const path = queryAt === -1 ? url : url.slice(0, queryAt);
		for (const route of routes) {
			if (route.method !== request.method) continue;
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
		fallback(request, response);
	};
}
