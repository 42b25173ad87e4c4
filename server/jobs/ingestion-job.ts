import type { EntityManager } from "@mikro-orm/postgresql";
import type PgBoss from "pg-boss";
import { z } from "zod";
import { JOB_SCHEMA, transactionDb } from "./job-queue";

/** One job per document and ingestion attempt. */
export const INGESTION_QUEUE = "knowledge-ingestion";

export const ZIngestionJob = z.object({
	documentId: z.string(),
	sourceId: z.string(),
	/** The document's `attempts` value this job was enqueued for; a job for an older attempt is stale. */
	attempt: z.number().int().positive(),
});
export type IngestionJob = z.infer<typeof ZIngestionJob>;

export async function createIngestionQueue(boss: PgBoss, processingTimeoutSeconds: number): Promise<void> {
	await boss.createQueue(INGESTION_QUEUE, {
		name: INGESTION_QUEUE,
		// Failures are recorded on the document (FAILED + reason) and re-run by POST .../retry, so
		// pg-boss only retries a job whose worker vanished; that retry finds its attempt stale or reclaims it.
		retryLimit: 2,
		retryDelay: 1,
		expireInSeconds: Math.max(30, processingTimeoutSeconds),
	});
}

/**
 * Enqueues inside the caller's transaction (tx must be inside em.transactional): the job exists
 * if and only if the state change that calls for it commits.
 */
export async function enqueueIngestion(boss: PgBoss, tx: EntityManager, job: IngestionJob): Promise<void> {
	const id = await boss.send(INGESTION_QUEUE, job, { db: await transactionDb(tx) });
	// pg-boss 10 returns null instead of failing when the queue is missing (TOOLCHAIN.md).
	if (id === null) throw new Error(`Queue ${INGESTION_QUEUE} refused the job`);
}

/**
 * Removes a source's (or one document's) jobs in the caller's transaction: queued ones (so they
 * never run) and finished ones (their data names deleted documents). A job already running is
 * left to its worker; it finds its document gone and ends without effect.
 */
export async function deleteIngestionJobs(_boss: PgBoss, tx: EntityManager, scope: { sourceId: string } | { documentId: string }): Promise<number> {
	const db = await transactionDb(tx);
	const [field, value] = "sourceId" in scope ? ["sourceId", scope.sourceId] : ["documentId", scope.documentId];
	const result = await db.executeSql(
		`delete from ${JOB_SCHEMA}.job where name = $1 and data->>'${field}' = $2 and state <> 'active' returning id`,
		[INGESTION_QUEUE, value],
	);
	return result.rows.length;
}
