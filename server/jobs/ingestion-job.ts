import type { EntityManager } from "@mikro-orm/postgresql";
import { z } from "zod";
import { rawConnection } from "../db/raw-connection";
import type { KnowledgeOptions } from "../knowledge/options";
import { JOB_SCHEMA, type JobDefinition, type JobQueue, transactionDb } from "./job-queue";

export const ZIngestionJob = z.object({
	documentId: z.string(),
	sourceId: z.string(),
	/** The document's `attempts` value this job was enqueued for; a job for an older attempt is stale. */
	attempt: z.number().int().positive(),
});
export type IngestionJob = z.infer<typeof ZIngestionJob>;

/** One job per document and ingestion attempt. */
export const INGESTION_JOB: JobDefinition<IngestionJob> = { name: "knowledge-ingestion", payload: ZIngestionJob };

/**
 * Fair turns across sources (start-time fair queuing on a clock of seconds): a document's slot is
 * the later of now and the end of the slot of its source's last queued document, each document
 * taking 1 s plus 1 s per 256 KiB. pg-boss fetches by priority (here: minus the slot) then age, so
 * a source's documents run in order, two busy sources take turns by size, and a document of a
 * source with nothing queued gets the current second: it waits for the documents that were due
 * before it (few: the clock runs far slower than ingestion), not for another source's backlog.
 * The costs are deliberately generous: a source that queued 1,400 small documents holds slots
 * for the next 23 minutes of the clock, which real work overtakes within seconds.
 */
const SLOT_EPOCH_SECONDS = 1_735_689_600; // 2025-01-01: slots fit pg-boss's integer priority until 2093.
const SLOT_BYTES_PER_SECOND = 256 * 1024;

/**
 * Enqueues ingestion of a document at `attempt` inside the caller's transaction (which changed
 * its state), in its source's fair turn (see SLOT_EPOCH_SECONDS).
 */
export async function enqueueIngestion(jobs: JobQueue, tx: EntityManager, job: IngestionJob): Promise<void> {
	const connection = await rawConnection(tx);
	const { rows } = await connection.query<{ slot: number }>(
		`update knowledge_documents d set ingestion_slot = greatest(
		   floor(extract(epoch from now()))::int - $2,
		   (select max(queued.ingestion_slot + 1 + queued.byte_size / $3) from knowledge_documents queued
		    where queued.source_id = d.source_id and queued.status = 'PENDING' and queued.id <> d.id and queued.ingestion_slot is not null))
		 where d.id = $1 returning d.ingestion_slot as slot`,
		[job.documentId, SLOT_EPOCH_SECONDS, SLOT_BYTES_PER_SECOND],
	);
	if (rows.length === 0) throw new Error(`Document ${job.documentId} is not there to enqueue`);
	await jobs.sendInTransaction(INGESTION_JOB, tx, job, { priority: -rows[0].slot });
}

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
