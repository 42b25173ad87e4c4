import type { Orm } from "../../db/orm";
import { DatabaseNotifications } from "../../db/notifications";
import type { SecretBox } from "../../shared/crypto";
import type { Logger } from "../../shared/logger";
import { API_KEY_REVOKED_CHANNEL, ApiKeyCache } from "../api-keys/api-key-cache";
import { DEPLOYMENT_CHANNEL, DeploymentResolver } from "../assistants/deployment-cache";
import { TraceWriter } from "../traces/trace-writer";
import { DEFAULT_QUOTAS, type QuotaDefaults, RequestQuotas } from "../quotas/consume-request-quota";
import { RedisWindowCounter } from "../quotas/redis-window-counter";
import { PROVIDER_CREDENTIAL_CHANNEL } from "../provider-credentials/set-provider-credential";
import { ProviderAdapters } from "./provider-adapters";
import type { RuntimeDependencies } from "./run-generation";

export interface RuntimeServices {
	dependencies: RuntimeDependencies;
	notifications: DatabaseNotifications;
	traces: TraceWriter;
	/** Authenticated keys, cached with revocation by NOTIFY. */
	apiKeys: ApiKeyCache;
	/** Rate limit and spend quota state; the trace writer feeds it this process's spend. */
	requestQuotas: RequestQuotas;
	close(): Promise<void>;
}

/** Runtime wiring: provider adapters, cached deployments and API keys (LISTEN/NOTIFY), the trace writer. */
export async function startRuntime(input: {
	orm: Orm;
	databaseUrl: string;
	secrets: SecretBox;
	logger: Logger;
	quotas?: QuotaDefaults;
	/** Rate-limit window counters in this Redis instead of PostgreSQL (REDIS_URL). */
	redisUrl?: string;
}): Promise<RuntimeServices> {
	const em = () => input.orm.em.fork();
	const notifications = new DatabaseNotifications(input.databaseUrl, [DEPLOYMENT_CHANNEL, API_KEY_REVOKED_CHANNEL, PROVIDER_CREDENTIAL_CHANNEL], input.logger);
	try {
		await notifications.start();
	} catch (error) {
		// Caches read through while the listener is down; it is not worth refusing to start over.
		input.logger.warn("could not LISTEN for cache invalidations; caches disabled", { error });
	}
	const traces = new TraceWriter(em, input.logger);
	const windows = input.redisUrl ? RedisWindowCounter.start(input.redisUrl, input.logger) : undefined;
	let warnedAt = -Infinity;
	const requestQuotas = new RequestQuotas(
		input.quotas ?? DEFAULT_QUOTAS,
		windows && {
			windows,
			onUnavailable: (error) => {
				// At most once a minute: every claim fails alike while Redis is down.
				if (Date.now() - warnedAt < 60_000) return;
				warnedAt = Date.now();
				input.logger.warn("rate-limit claims fall back to PostgreSQL: Redis did not answer", { error });
			},
		},
	);
	traces.onFlushed = (batch) => {
		for (const trace of batch) requestQuotas.addSpend(trace.workspace, trace.costMicroUsd);
	};
	const dependencies: RuntimeDependencies = {
		em,
		adapters: new ProviderAdapters(input.secrets, notifications),
		deployments: new DeploymentResolver(notifications),
		logger: input.logger,
		onOutcome: (outcome) => traces.record(outcome),
	};
	return {
		dependencies,
		notifications,
		traces,
		apiKeys: new ApiKeyCache(notifications),
		requestQuotas,
		async close() {
			await traces.close();
			await notifications.close();
			await windows?.close();
		},
	};
}
