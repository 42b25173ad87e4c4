import { fileURLToPath } from "node:url";
import { loadConfig } from "./config";
import { resolveDatabase } from "./db/database-url";
import { migrateDatabase } from "./db/orm";
import { WorkerProcess } from "./jobs/worker-process";
import { startPlatform } from "./platform";
import { createLogger } from "./shared/logger";
import { exitOnStartFailure, stopOnSignals, warnAboutEndOfLifeRuntime } from "./shared/process-lifecycle";

/** A stopping worker finishes its documents in the server's grace, plus this, before it is killed. */
const WORKER_STOP_MARGIN_MS = 5_000;

/** Composition root: config -> database (embedded when DATABASE_URL is unset) -> its ingestion worker process (KNOWLEDGE_WORKER=process) -> platform. */
async function main() {
	const config = loadConfig();
	const logger = createLogger(config.logLevel);
	warnAboutEndOfLifeRuntime(logger);
	const database = await resolveDatabase({
		databaseUrl: config.databaseUrl,
		dataDirectory: config.dataDirectory,
		relocationDirectory: config.embeddedPostgresDirectory,
		log: (message) => logger.info(message),
	});
	if (database.embedded) logger.info("embedded PostgreSQL started", { dataDirectory: config.dataDirectory });
	// Started before the server, so that it boots while the server does, not during the server's first requests;
	// the database is migrated first, so the worker finds it done instead of waiting on the migration lock.
	if (config.workerProcess) await migrateDatabase(database.url);
	const worker = config.workerProcess
		? WorkerProcess.start({
				script: fileURLToPath(new URL("./worker.js", import.meta.url)),
				environment: { DATABASE_URL: database.url, WORKER_JOBS: "ingestion" },
				logger,
				stopGraceMs: config.http.shutdownGraceMs + WORKER_STOP_MARGIN_MS,
			})
		: undefined;
	const platform = await startPlatform({
		databaseUrl: database.url,
		secretKey: config.secretKey,
		port: config.port,
		host: config.host,
		publicBaseUrl: config.publicBaseUrl,
		logger,
		dataDirectory: config.dataDirectory,
		knowledge: config.knowledge,
		evaluations: config.evaluations,
		quotas: config.quotas,
		redisUrl: config.redisUrl,
		http: config.http,
		oauth: config.oauth,
		egress: config.egress,
		signIn: config.signIn,
		passwordHashing: config.passwordHashing,
		trustedProxies: config.trustedProxies,
		sessions: config.sessions,
		observability: config.observability,
		// dist/web beside this bundle (dist/main.js), built by `npm run build` like the bundle itself.
		webDirectory: fileURLToPath(new URL("./web", import.meta.url)),
		// The checkout's openapi.yaml, beside dist/.
		openApiDocument: fileURLToPath(new URL("../openapi.yaml", import.meta.url)),
	});
	logger.info("listening", { port: config.port, publicBaseUrl: config.publicBaseUrl, ...(platform.metricsUrl ? { metrics: platform.metricsUrl } : {}) });

	stopOnSignals(logger, async () => {
		try {
			// Both wind down at once: requests drain while the worker finishes its documents.
			const stopped = await Promise.allSettled([platform.close(), worker?.stop()]);
			const failed = stopped.find((result) => result.status === "rejected");
			if (failed) throw failed.reason;
		} finally {
			await database.stop();
		}
	});
}

main().catch(exitOnStartFailure);
