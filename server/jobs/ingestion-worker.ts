import type { MikroORM } from "@mikro-orm/postgresql";
import type { KnowledgeServices } from "../knowledge/knowledge-services";
import { requeueDocument, sweepOrphanedDocuments } from "../modules/knowledge/document-lifecycle";
import { ingestDocument } from "../modules/knowledge/ingest-document";
import type { PlatformMetrics } from "../observability/metrics";
import type { Tracing } from "../observability/tracing-types";
import type { Logger } from "../shared/logger";
import { INGESTION_JOB, type IngestionJob } from "./ingestion-job";
import { traceparentOf } from "./job-queue";

/** Subscribes this process to ingestion jobs, `workerConcurrency` at a time; with tracing, each in a span linked to the request that queued it. */
export function startIngestionWorker(orm: MikroORM, services: KnowledgeServices, logger: Logger, metrics?: PlatformMetrics, tracing?: Tracing | null): void {
	const options = services.settings.knowledge;
	services.jobs.work(INGESTION_JOB, { concurrency: options.workerConcurrency, pollingIntervalSeconds: options.pollIntervalSeconds }, async (job, queued) => {
		if (!tracing) {
			await runIngestion(job);
			return;
		}
		const traceparent = traceparentOf(queued);
		await tracing.runJob({ queue: INGESTION_JOB.name, jobId: queued.id, documentId: job.documentId, attempt: job.attempt, ...(traceparent ? { traceparent } : {}) }, () => runIngestion(job));
	});

	async function runIngestion(job: IngestionJob): Promise<string> {
		const started = performance.now();
		const outcome = await ingestDocument(orm.em.fork(), services, job, logger);
		// Its parser process died or was killed: another attempt, now (unfinished parses are counted).
		if (outcome === "interrupted") await requeueDocument(orm, services.jobs, job);
		// A stale job (the document moved on, or was deleted) did nothing worth counting.
		if (outcome !== "stale") metrics?.recordIngestion(outcome === "interrupted" ? "retried" : outcome, (performance.now() - started) / 1000);
		logger.debug("ingestion job done", { documentId: job.documentId, attempt: job.attempt, outcome });
		return outcome;
	}
}

/** Every sweep interval, documents orphaned in PROCESSING go back to PENDING (document-lifecycle.ts). */
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
