import type { IncomingMessage, ServerResponse } from "node:http";
import { createExpressEndpoints } from "@ts-rest/express";
import express from "express";
import { healthContract } from "../../contract/health";
import type { HttpDependencies } from "./context";
import { authenticate } from "./middleware/authenticate";
import { errorHandler, notFoundHandler, validationErrorHandler } from "./middleware/errors";
import { jsonBody } from "./middleware/json-body";
import { requestId } from "./middleware/request-id";
import { createHealthRouter } from "./routers/health";
import { createKnowledgeRouter, knowledgeRoutes } from "./routers/knowledge";
import { runtimeRoutes } from "./routers/runtime";
import { idempotency } from "./middleware/idempotency";
import { ProviderAdapters } from "../modules/runtime/provider-adapters";
import { DeploymentResolver } from "../modules/assistants/deployment-cache";
import { createUploadsRouter } from "./routers/uploads";
import { createNodeRouter } from "./node-router";

/**
 * The HTTP server's request listener. The runtime routes (the hot path) are served by the node
 * router; everything else by Express. Per contract route, in both: request id -> API key and
 * scope -> JSON body -> contract validation -> handler; anything else -> 404 envelope; every
 * error -> the spec's envelope.
 */
export function createRequestListener(dependencies: HttpDependencies): (request: IncomingMessage, response: ServerResponse) => void {
	const runtime = dependencies.runtime ?? {
		em: () => dependencies.orm.em.fork(),
		adapters: new ProviderAdapters(dependencies.secrets),
		deployments: new DeploymentResolver(),
	};
	return createNodeRouter(dependencies, runtimeRoutes(runtime), createExpressApp(dependencies));
}

function createExpressApp(dependencies: HttpDependencies): express.Express {
	const app = express();
	app.disable("x-powered-by");
	app.set("etag", false);
	app.set("trust proxy", false);
	app.use(requestId());

	const options = {
		logInitialization: false,
		jsonQuery: false,
		responseValidation: false,
		// Plain Express middleware; ts-rest types these per route, which they need not be.
		globalMiddleware: [authenticate(dependencies), jsonBody()] as never[],
		requestValidationErrorHandler: validationErrorHandler as never,
	};
	createExpressEndpoints(healthContract, createHealthRouter(dependencies), app, options);
	// Idempotency-Key applies to the knowledge writes whose contract says `idempotent`.
	createExpressEndpoints(knowledgeRoutes, createKnowledgeRouter(dependencies), app, { ...options, globalMiddleware: [...options.globalMiddleware, idempotency(dependencies)] as never[] });
	// Presigned-upload PUTs: raw bytes, no API key, so outside the contract and its middleware.
	app.use(createUploadsRouter(dependencies));

	app.use(notFoundHandler());
	app.use(errorHandler(dependencies.logger));
	return app;
}
