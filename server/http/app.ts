import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import type { PlatformServices } from "../modules/platform-services";
import { createContractRouter } from "./contract-router";
import { errorHandler, notFoundHandler } from "./middleware/errors";
import { requestId } from "./middleware/request-id";
import { healthRoutes } from "./routers/health";
import { knowledgeRoutes } from "./routers/knowledge";
import { runtimeRoutes } from "./routers/runtime";
import { createUploadsRouter } from "./routers/uploads";

/**
 * The HTTP server's request listener: every contract route through the one pipeline
 * (contract-router.ts, pipeline.ts); Express for what is not in the contract (presigned-upload
 * PUTs) and the 404; every error in the spec's envelope.
 */
export function createRequestListener(services: PlatformServices): (request: IncomingMessage, response: ServerResponse) => void {
	return createContractRouter(services, [...runtimeRoutes(), ...knowledgeRoutes(), ...healthRoutes()], createExpressApp(services));
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
