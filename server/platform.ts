import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { openDatabase, type Orm } from "./db/orm";
import { createRequestListener } from "./http/app";
import { type RuntimeServices, startRuntime } from "./modules/runtime/start-runtime";
import { DEFAULT_QUOTAS, type QuotaDefaults } from "./modules/quotas/consume-request-quota";
import { DEFAULT_KNOWLEDGE_OPTIONS, type KnowledgeOptions } from "./knowledge/options";
import { startKnowledge } from "./knowledge/start-knowledge";
import { SecretBox } from "./shared/crypto";
import { createLogger, type Logger } from "./shared/logger";

export interface PlatformOptions {
	databaseUrl: string;
	secretKey: string;
	port: number;
	host?: string;
	publicBaseUrl?: string;
	logger?: Logger;
	/** Root of stored document bytes (DATA_DIR); objects go under its `objects/`. */
	dataDirectory?: string;
	knowledge?: Partial<KnowledgeOptions>;
	/** Per-key requests per minute and monthly spend quota, unless a workspace overrides them. */
	quotas?: Partial<QuotaDefaults>;
	/** REDIS_URL: rate-limit counters in Redis rather than PostgreSQL (docs/runtime.md, Quotas). */
	redisUrl?: string;
}

export interface RunningPlatform {
	url: string;
	orm: Orm;
	server: Server;
	runtime: RuntimeServices;
	close(): Promise<void>;
}

/** Wires database -> services -> HTTP and listens. Used by main.ts and by the tests alike. */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
	const logger = options.logger ?? createLogger("info");
	const orm = await openDatabase(options.databaseUrl);
	const secrets = new SecretBox(options.secretKey);
	let publicBaseUrl = options.publicBaseUrl ?? "";
	const knowledgeOptions = { ...DEFAULT_KNOWLEDGE_OPTIONS, ...options.knowledge };
	const knowledge = await startKnowledge({
		orm,
		databaseUrl: options.databaseUrl,
		secretKey: options.secretKey,
		secrets,
		dataDirectory: options.dataDirectory ?? ".data",
		publicBaseUrl: () => publicBaseUrl,
		options: knowledgeOptions,
		logger,
		runWorker: knowledgeOptions.worker === "inline",
	});
	const quotas = { ...DEFAULT_QUOTAS, ...options.quotas };
	const runtime = await startRuntime({ orm, databaseUrl: options.databaseUrl, secrets, logger, quotas, redisUrl: options.redisUrl });
	const listener = createRequestListener({ orm, logger, secrets, knowledge, runtime: runtime.dependencies, apiKeys: runtime.apiKeys, quotas, requestQuotas: runtime.requestQuotas, get publicBaseUrl() { return publicBaseUrl; } });
	const server = createServer(listener).listen(options.port, options.host ?? "0.0.0.0");
	await once(server, "listening");
	// Slow clients must not hold sockets forever; long generations stream, so no overall timeout.
	server.headersTimeout = 30_000;
	server.keepAliveTimeout = 65_000;
	const { port } = server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	publicBaseUrl ||= `http://localhost:${port}`;
	return {
		url,
		orm,
		server,
		runtime,
		async close() {
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeIdleConnections();
			});
			await knowledge.close();
			// After the server: in-flight generations have recorded their traces by now.
			await runtime.close();
			await orm.close();
		},
	};
}
