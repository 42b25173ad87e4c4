import { loadConfig } from "./config";
import { resolveDatabase } from "./db/database-url";
import { createPlatformServices } from "./platform";
import { runAsBackgroundProcess } from "./shared/background-priority";
import { createLogger } from "./shared/logger";
import { exitOnStartFailure, stopOnSignals } from "./shared/process-lifecycle";

/**
 * `npm run worker`: ingestion and evaluation runs without HTTP, for scale-out. Uses the API server's database
 * (DATABASE_URL, or the running embedded one under DATA_DIR), SECRET_KEY (provider credentials
 * are decrypted here) and DATA_DIR (local-disk storage is shared).
 * Any number may run; pg-boss hands each job to one of them.
 */
async function main() {
	// Its documents wait; requests to an API server on the same cores should not.
	runAsBackgroundProcess();
	const config = loadConfig();
	const logger = createLogger(config.logLevel);
	const database = await resolveDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDirectory, relocationDirectory: config.embeddedPostgresDirectory, log: (message) => logger.info(message) });
	const platform = await createPlatformServices(
		{
			databaseUrl: database.url,
			secretKey: config.secretKey,
			publicBaseUrl: () => config.publicBaseUrl,
			logger,
			dataDirectory: config.dataDirectory,
			knowledge: config.knowledge,
			evaluations: config.evaluations,
			quotas: config.quotas,
			redisUrl: config.redisUrl,
			egress: config.egress,
			workerJobs: config.workerJobs,
		},
		"worker",
	);
	logger.info("worker started", { jobs: config.workerJobs, knowledgeConcurrency: config.knowledge.workerConcurrency, evaluationConcurrency: config.evaluations.workerConcurrency });
	stopOnSignals(logger, async () => {
		try {
			await platform.close();
		} finally {
			await database.stop();
		}
	});
	// Started by a server (KNOWLEDGE_WORKER=process): a server that dies without stopping it closes
	// this channel, and the worker winds down rather than outliving it.
	if (process.send) {
		const orphaned = () => process.kill(process.pid, "SIGTERM");
		// It may have died while this one was starting.
		if (!process.connected) orphaned();
		else {
			process.channel?.unref();
			process.once("disconnect", orphaned);
		}
	}
}

main().catch(exitOnStartFailure);
