import type { BodyThread } from "./body-thread";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PlatformServices } from "../modules/platform-services";
import { createRouter } from "./router";
import type { RawRoute } from "./raw-route";
import type { OAuthEndpoints } from "./oauth-endpoints";
import { healthRoutes } from "./routers/health";
import { knowledgeRoutes } from "./routers/knowledge";
import { managementRoutes } from "./routers/management";
import { openAiCompatibleRoutes } from "./routers/openai-compatible";
import { runtimeRoutes } from "./routers/runtime";
import { uploadsRoute } from "./routers/uploads";
import { metricsRoutes } from "./metrics-endpoint";
import { apiReferenceRoutes } from "./api-reference/api-reference-routes";

/**
 * The HTTP server's request listener: one route table (router.ts) for every request. Contract
 * routes (runtime, knowledge, health, the dashboard's management API) run through the one
 * pipeline; the rest are rows of the same table: /mcp and the authorization server with its pages
 * (oauth-endpoints.ts), presigned-upload PUTs, and the dashboard's pages and assets. Anything else
 * is 404 in the envelope.
 */
export function createRequestListener(
	services: PlatformServices,
	oauth: OAuthEndpoints,
	dashboard: RawRoute[],
	reference: { openApiDocument: string },
	bodies: BodyThread,
): (request: IncomingMessage, response: ServerResponse) => void {
	return createRouter(
		services,
		bodies,
		[...runtimeRoutes(), ...openAiCompatibleRoutes(), ...knowledgeRoutes(), ...healthRoutes(), ...managementRoutes()],
		[...metricsRoutes(services), ...apiReferenceRoutes(reference), ...oauth.routes, uploadsRoute(services), ...dashboard],
	);
}
