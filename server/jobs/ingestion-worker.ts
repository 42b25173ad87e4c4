import type { MikroORM } from "@mikro-orm/postgresql";
import { ingestDocument } from "../knowledge/ingest-document";
import type { KnowledgeServices } from "../knowledge/knowledge-services";
import type { Logger } from "../shared/logger";
import { INGESTION_JOB } from "./ingestion-job";

/** Subscribes this process to ingestion jobs, `workerConcurrency` at a time. */
export async function startIngestionWorker(orm: MikroORM, services: KnowledgeServices, logger: Logger): Promise<void> {
	const options = services.settings.knowledge;
	await services.jobs.work(INGESTION_JOB, { concurrency: options.workerConcurrency, pollingIntervalSeconds: options.pollIntervalSeconds }, async (job) => {
		const outcome = await ingestDocument(orm.em.fork(), services, job, logger);
		logger.debug("ingestion job done", { documentId: job.documentId, attempt: job.attempt, outcome });
	});
}

/**
 * Re-queues documents left PROCESSING past the deadline by a worker that died (kill -9, OOM, a
 * lost host). Each instance runs it; a transaction-scoped advisory lock lets one sweep at a time.
 * The new attempt number makes any late write from the vanished worker a no-op.
 */
export async function sweepOrphanedDocuments(orm: MikroORM, services: KnowledgeServices): Promise<number> {
	return orm.em.fork().transactional(async (tx) => {
		const context = tx.getTransactionContext();
		const connection = tx.getConnection();
		const [lock]: { locked: boolean }[] = await connection.execute("select pg_try_advisory_xact_lock(hashtext('knowledge-orphan-sweeper')) as locked", [], "all", context);
		if (!lock?.locked) return 0;
		const orphans: { id: string; source_id: string; attempts: number }[] = await connection.execute(
			`update knowledge_documents set status = 'PENDING', attempts = attempts + 1, processing_started_at = null, updated_at = now()
			 where id in (select id from knowledge_documents where status = 'PROCESSING' and processing_started_at < now() - make_interval(secs => ?)
			              order by processing_started_at limit 100 for update skip locked)
			 returning id, source_id, attempts`,
			[services.settings.knowledge.processingTimeoutSeconds],
			"all",
			context,
		);
		for (const orphan of orphans) {
			await services.jobs.sendInTransaction(INGESTION_JOB, tx, { documentId: orphan.id, sourceId: orphan.source_id, attempt: orphan.attempts });
		}
		return orphans.length;
	});
}

export function startOrphanSweeper(orm: MikroORM, services: KnowledgeServices, logger: Logger): { stop(): void } {
	let running = false;
	const timer = setInterval(() => {
		if (running) return;
		running = true;
		sweepOrphanedDocuments(orm, services)
			.then((count) => count && logger.warn("re-queued documents orphaned in PROCESSING", { count }))
			.catch((error) => logger.error("orphan sweep failed", { error }))
			.finally(() => {
				running = false;
			});
	}, services.settings.knowledge.sweepIntervalSeconds * 1000);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}
