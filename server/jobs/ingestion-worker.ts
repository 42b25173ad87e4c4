import type { MikroORM } from "@mikro-orm/postgresql";
import { ingestDocument } from "../knowledge/ingest-document";
import type { KnowledgeServices } from "../knowledge/knowledge-services";
import type { PlatformMetrics } from "../observability/metrics";
import type { Logger } from "../shared/logger";
import { enqueueIngestion, INGESTION_JOB } from "./ingestion-job";

/** Subscribes this process to ingestion jobs, `workerConcurrency` at a time. */
export function startIngestionWorker(orm: MikroORM, services: KnowledgeServices, logger: Logger, metrics?: PlatformMetrics): void {
	const options = services.settings.knowledge;
	services.jobs.work(INGESTION_JOB, { concurrency: options.workerConcurrency, pollingIntervalSeconds: options.pollIntervalSeconds }, async (job) => {
		const started = performance.now();
		const outcome = await ingestDocument(orm.em.fork(), services, job, logger);
		// Its parser process died or was killed: another attempt, now (unfinished parses are counted).
		if (outcome === "interrupted") await requeueDocument(orm, services, job);
		// A stale job (the document moved on, or was deleted) did nothing worth counting.
		if (outcome !== "stale") metrics?.recordIngestion(outcome === "interrupted" ? "retried" : outcome, (performance.now() - started) / 1000);
		logger.debug("ingestion job done", { documentId: job.documentId, attempt: job.attempt, outcome });
	});
}

/** The document back to PENDING at a new attempt with its job, if it is still PROCESSING at `job.attempt`. */
async function requeueDocument(orm: MikroORM, services: KnowledgeServices, job: { documentId: string; attempt: number }): Promise<void> {
	await orm.em.fork().transactional(async (tx) => {
		const requeued: { id: string; source_id: string; attempts: number }[] = await tx.getConnection().execute(
			`update knowledge_documents set status = 'PENDING', attempts = attempts + 1, processing_started_at = null, updated_at = now()
			 where id = ? and attempts = ? and status = 'PROCESSING' returning id, source_id, attempts`,
			[job.documentId, job.attempt],
			"all",
			tx.getTransactionContext(),
		);
		for (const document of requeued) {
			await enqueueIngestion(services.jobs, tx, { documentId: document.id, sourceId: document.source_id, attempt: document.attempts });
		}
	});
}

/**
 * Re-queues documents left PROCESSING past the deadline by a worker that died (kill -9, OOM, a
 * lost host). Each instance runs it; a transaction-scoped advisory lock lets one sweep at a time.
 * The new attempt number makes any late write from the vanished worker a no-op.
 */
export async function sweepOrphanedDocuments(orm: MikroORM, services: KnowledgeServices): Promise<number> {
	// Most sweeps find nothing: that is decided without an ORM transaction, whose AsyncLocalStorage
	// would switch on Node 20's promise hooks for every later request of this process.
	const [due]: { found: boolean }[] = await orm.em
		.getConnection()
		.execute("select exists (select 1 from knowledge_documents where status = 'PROCESSING' and processing_started_at < now() - make_interval(secs => ?)) as found", [
			services.settings.knowledge.processingTimeoutSeconds,
		]);
	if (!due?.found) return 0;
	return orm.em.fork().transactional(async (tx) => {
		const context = tx.getTransactionContext();
		const connection = tx.getConnection();
		const [lock]: { locked: boolean }[] = await connection.execute("select pg_try_advisory_xact_lock(hashtext('knowledge-orphan-sweeper')) as locked", [], "all", context);
		if (!lock?.locked) return 0;
		// A document whose parses took the process down more often than the retries allow fails
		// instead (unfinished_parses is raised before every parse): one poison upload must not
		// crash-loop every process that picks it up.
		const retries = services.settings.knowledge.parsing.retries;
		const swept: { id: string; source_id: string; attempts: number; status: string }[] = await connection.execute(
			`update knowledge_documents set
			   status = case when unfinished_parses > ? then 'FAILED' else 'PENDING' end,
			   failure_reason = case when unfinished_parses > ? then 'Parsing this document stopped its ingestion process ' || unfinished_parses || ' times; it is not tried again until you retry it' end,
			   attempts = attempts + case when unfinished_parses > ? then 0 else 1 end,
			   processing_started_at = null, updated_at = now()
			 where id in (select id from knowledge_documents where status = 'PROCESSING' and processing_started_at < now() - make_interval(secs => ?)
			              order by processing_started_at limit 100 for update skip locked)
			 returning id, source_id, attempts, status`,
			[retries, retries, retries, services.settings.knowledge.processingTimeoutSeconds],
			"all",
			context,
		);
		const orphans = swept.filter((document) => document.status === "PENDING");
		for (const orphan of orphans) {
			await enqueueIngestion(services.jobs, tx, { documentId: orphan.id, sourceId: orphan.source_id, attempt: orphan.attempts });
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
