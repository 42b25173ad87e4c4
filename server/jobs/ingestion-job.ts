import type { EntityManager } from "@mikro-orm/postgresql";
import { z } from "zod";
import type { KnowledgeOptions } from "../knowledge/options";
import { JOB_SCHEMA, type JobDefinition, type JobQueue, transactionDb } from "./job-queue";

export const ZIngestionJob = z.object({
	documentId: z.string(),
	sourceId: z.string(),
	/** The document's `attempts` value this job was enqueued for; a job for an older attempt is stale. */
	attempt: z.number().int().positive(),
});
export type IngestionJob = z.infer<typeof ZIngestionJob>;

/** One job per document and ingestion attempt; queued by the document lifecycle (server/modules/knowledge/document-lifecycle.ts) with the state change that asks for it. */
export const INGESTION_JOB: JobDefinition<IngestionJob> = { name: "knowledge-ingestion", payload: ZIngestionJob };

export async function declareIngestionQueue(jobs: JobQueue, options: Pick<KnowledgeOptions, "processingTimeoutSeconds">): Promise<void> {
	await jobs.declare(INGESTION_JOB, {
		// Failures are recorded on the document (FAILED + reason) and re-run by POST .../retry, so
		// pg-boss only retries a job whose worker vanished; that retry finds its attempt stale or reclaims it.
		retryLimit: 2,
		retryDelay: 1,
		expireInSeconds: Math.max(30, options.processingTimeoutSeconds),
	});
}

/**
 * Removes a source's (or one document's) jobs in the caller's transaction: queued ones (so they
 * never run) and finished ones (their data names deleted documents). A job already running is
 * left to its worker; it finds its document gone and ends without effect.
 */
export async function deleteIngestionJobs(tx: EntityManager, scope: { sourceId: string } | { documentId: string }): Promise<number> {
	const db = await transactionDb(tx);
	const [field, value] = "sourceId" in scope ? ["sourceId", scope.sourceId] : ["documentId", scope.documentId];
	const result = await db.executeSql(
		`delete from ${JOB_SCHEMA}.job where name = $1 and data->>'${field}' = $2 and state <> 'active' returning id`,
		[INGESTION_JOB.name, value],
	);
	return result.rows.length;
}
