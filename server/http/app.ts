import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import type { PlatformServices } from "../modules/platform-services";
import { createContractRouter } from "./contract-router";
import type { OAuthEndpoints } from "./oauth-endpoints";
import type { WebAssets } from "./web-assets";
import { errorHandler, notFoundHandler } from "./middleware/errors";
import { requestId } from "./middleware/request-id";
import { healthRoutes } from "./routers/health";
import { knowledgeRoutes } from "./routers/knowledge";
import { managementRoutes } from "./routers/management";
import { runtimeRoutes } from "./routers/runtime";
import { createUploadsRouter } from "./routers/uploads";

/**
 * The HTTP server's request listener: every contract route through the one pipeline
 * (contract-router.ts, pipeline.ts); Express for what is not in the contract (presigned-upload
 * PUTs) and the 404; every error in the spec's envelope. The MCP control plane (oauth-endpoints.ts)
 * is tried first: /mcp, the OAuth endpoints, discovery and the sign-in pages; then the dashboard.
 */
export function createRequestListener(services: PlatformServices, oauth: OAuthEndpoints, web: WebAssets): (request: IncomingMessage, response: ServerResponse) => void {
	const contractRouter = createContractRouter(services, [...runtimeRoutes(), ...knowledgeRoutes(), ...healthRoutes(), ...managementRoutes()], createExpressApp(services));
	return (request, response) => {
		const url = request.url ?? "/";
		const queryAt = url.indexOf("?");
		// The MCP control plane (/mcp, OAuth, discovery, pages) first: a few string checks, then the contract routes.
		const path = queryAt === -1 ? url : url.slice(0, queryAt);
		if (oauth.handle(request, response, path)) return;
		// The dashboard's pages and assets (GET only; every API path is outside its prefixes).
		if (web.handle(request, response, path)) return;
		contractRouter(request, response);
	};
}

function createExpressApp(services: PlatformServices): express.Express {
	const app = express();
	app.disable("x-powered-by");
	app.set("etag", false);
	app.set("trust proxy", false);
	app.use(requestId());
	// Presigned-upload PUTs: raw bytes, no API key, so outside the contract and its pipeline.
	app.use(createUploadsRouter(services));
	app.use(notFoundHandler());
	app.use(errorHandler(services.logger));
	return app;
}
