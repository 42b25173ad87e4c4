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
import { createRuntimeRouter, runtimeRoutes } from "./routers/runtime";
import { idempotency } from "./middleware/idempotency";
import { enforceQuotas } from "./middleware/quotas";
import { DEFAULT_QUOTAS, RequestQuotas } from "../modules/quotas/consume-request-quota";
import { ProviderAdapters } from "../modules/runtime/provider-adapters";
import { DeploymentResolver } from "../modules/assistants/deployment-cache";
import { createUploadsRouter } from "./routers/uploads";

/**
 * The Express app. Per contract route: request id -> API key and scope -> JSON body -> ts-rest
 * validation -> handler; anything else -> 404 envelope; every error -> the spec's envelope.
 */
export function createHttpApp(dependencies: HttpDependencies): express.Express {
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
	createExpressEndpoints(knowledgeRoutes, createKnowledgeRouter(dependencies), app, options);
	const runtime = dependencies.runtime ?? {
		em: () => dependencies.orm.em.fork(),
		adapters: new ProviderAdapters(dependencies.secrets),
		deployments: new DeploymentResolver(),
	};
	// Rate limit, spend quota and Idempotency-Key apply to the runtime routes; other routers can add them.
	const runtimeOptions = { ...options, globalMiddleware: [...options.globalMiddleware, enforceQuotas(dependencies, dependencies.requestQuotas ?? new RequestQuotas(dependencies.quotas ?? DEFAULT_QUOTAS)), idempotency(dependencies)] as never[] };
	createExpressEndpoints(runtimeRoutes, createRuntimeRouter({ ...dependencies, runtime }), app, runtimeOptions);
	// Presigned-upload PUTs: raw bytes, no API key, so outside the contract and its middleware.
	app.use(createUploadsRouter(dependencies));

	app.use(notFoundHandler());
	app.use(errorHandler(dependencies.logger));
	return app;
}
