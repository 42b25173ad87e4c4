import type { Orm } from "../db/orm";
import type { KnowledgeRuntime } from "../knowledge/start-knowledge";
import type { ApiKeyPrincipal } from "../modules/api-keys/authenticate-api-key";
import type { RuntimeDependencies } from "../modules/runtime/run-generation";
import type { ApiKeyCache } from "../modules/api-keys/api-key-cache";
import type { QuotaDefaults, RequestQuotas } from "../modules/quotas/consume-request-quota";
import type { SecretBox } from "../shared/crypto";
import type { Logger } from "../shared/logger";

/** What the HTTP layer needs from the composition root. */
export interface HttpDependencies {
	orm: Orm;
	logger: Logger;
	secrets: SecretBox;
	publicBaseUrl: string;
	/** Storage, jobs and presigned-upload signing for the knowledge routes. */
	knowledge?: KnowledgeRuntime;
	/** Provider adapters and generation hooks (traces); built from orm + secrets when absent. */
	runtime?: RuntimeDependencies;
	/** Cached API-key lookups; without it every request reads the database. */
	apiKeys?: ApiKeyCache;
	/** Installation-wide rate limit and spend quota defaults (workspaces may override). */
	quotas?: QuotaDefaults;
	/** The in-process quota state (reserved requests, cached spend); built from `quotas` when absent. */
	requestQuotas?: RequestQuotas;
}

declare global {
	namespace Express {
		interface Request {
			requestId: string;
			/** Set by the API-key middleware on authenticated routes. */
			principal?: ApiKeyPrincipal;
		}
	}
}

export function principalOf(request: Express.Request): ApiKeyPrincipal {
	if (!request.principal) throw new Error("Route reached without authentication");
	return request.principal;
}
