import type { EntityManager, MikroORM } from "@mikro-orm/postgresql";
import { type KnowledgeDocument, KnowledgeDocumentSchema, type KnowledgeSource } from "../../db/entities";
import { type RawConnection, rawConnection } from "../../db/raw-connection";
import { INGESTION_JOB, type IngestionJob } from "../../jobs/ingestion-job";
import type { JobQueue } from "../../jobs/job-queue";
import { KNOWLEDGE_CHUNKS_CHANNEL, notifyChunksChanged } from "../../knowledge/index/vector-notifications";
import type { KnowledgeOptions } from "../../knowledge/options";
import { AppError } from "../../shared/app-error";
import { type DocumentRef, findKnowledgeDocument } from "./find-knowledge-records";

/**
 * The one writer of `knowledge_documents` (test/foundation/layering.test.ts keeps it so): a
 * document's whole life, in the order it is lived.
 *
 *   create (PENDING, attempt 0 or 1) -> completeUpload (attempt +1, queued) -> claim (PROCESSING)
 *   -> markParsed -> markReady | markFailed | requeue (PENDING, attempt +1)
 *   retry: FAILED -> PENDING (attempt +1); sweep: PROCESSING past the deadline -> PENDING or FAILED
 *   delete: the row, its chunks (cascade) and queued jobs' effect
 *
 * Every transition after the claim is conditioned on the attempt it was made for, so a late or
 * duplicate job changes nothing; every transition that queues work queues it in the same
 * transaction (a committed PENDING document always has its job).
 */

/**
 * The worker's own commits (claim, parse count, chunks + READY) do not wait for the WAL to reach disk: each
 * fsync cost a document about 4 ms on this class of disk, twice, and a transaction that NOTIFYs
 * holds PostgreSQL's notify lock through its flush, so concurrent documents queued behind each
 * other's fsyncs. After a power loss (not a process crash) the last fraction of a second of these
 * commits may be lost; the database stays consistent and the document is PROCESSING again, which
 * the orphan sweeper re-queues. Uploads and state changes made through the API stay synchronous.
 */
const RELAXED_DURABILITY = "select set_config('synchronous_commit', 'off', true)";

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

/** What one attempt needs of its document and source, read by the claim itself. */
export interface ClaimedDocument {
	workspace: string;
	filename: string;
	storageKey: string;
	/** Parses of this document begun and not finished, this one included. */
	unfinishedParses: number;
	source: Pick<KnowledgeSource, "id" | "workspace" | "embeddingProvider" | "embeddingModel" | "embeddingDimensions" | "vectorStore">;
}

export interface NewDocument {
	id: string;
	workspaceId: string;
	sourceId: string;
	filename: string;
	contentType: string;
	byteSize: number;
	storageKey: string;
}

type Attempt = Pick<IngestionJob, "documentId" | "attempt">;

/**
 * Queues ingestion of a document at `attempt` inside the caller's transaction (which changed its
 * state), in its source's fair turn (see SLOT_EPOCH_SECONDS).
 */
async function queueAttempt(jobs: JobQueue, tx: EntityManager, job: IngestionJob): Promise<void> {
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

/**
 * A new PENDING document in the caller's transaction. `uploaded`: its bytes are stored already
 * (direct upload), so attempt 1 is queued now; otherwise (presigned flow) it waits at attempt 0
 * for completeUpload.
 */
export async function createDocument(tx: EntityManager, jobs: JobQueue, document: NewDocument, options: { uploaded: boolean }): Promise<KnowledgeDocument> {
	const created = tx.create(KnowledgeDocumentSchema, {
		id: document.id,
		workspace: document.workspaceId,
		source: document.sourceId,
		filename: document.filename,
		contentType: document.contentType,
		byteSize: document.byteSize,
		storageKey: document.storageKey,
		status: "PENDING",
		failureReason: null,
		chunkCount: 0,
		attempts: options.uploaded ? 1 : 0,
		uploadedAt: options.uploaded ? new Date() : null,
		processingStartedAt: null,
		processedAt: null,
	});
	await tx.flush();
	if (options.uploaded) await queueAttempt(jobs, tx, { documentId: document.id, sourceId: document.sourceId, attempt: 1 });
	return created;
}

/** Presigned flow, last step: the bytes are there; attempt 1 is queued. Of two racing completes exactly one queues. */
export async function completeUpload(tx: EntityManager, jobs: JobQueue, ref: DocumentRef): Promise<KnowledgeDocument> {
	const locked = await findKnowledgeDocument(tx, ref, { lock: true });
	if (locked.uploadedAt !== null) throw new AppError("INVALID_REQUEST", "This document's upload is already complete");
	locked.uploadedAt = new Date();
	locked.attempts += 1;
	await tx.flush();
	await queueAttempt(jobs, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
	return locked;
}

/** FAILED -> PENDING under a new attempt, queued. Asked for by a person (the budgets may have changed): parser deaths are counted afresh. */
export async function retryDocument(tx: EntityManager, jobs: JobQueue, ref: DocumentRef): Promise<KnowledgeDocument> {
	const locked = await findKnowledgeDocument(tx, ref, { lock: true });
	if (locked.status !== "FAILED") throw new AppError("INVALID_REQUEST", `Only a FAILED document can be retried; this one is ${locked.status}`);
	locked.status = "PENDING";
	locked.failureReason = null;
	locked.processingStartedAt = null;
	locked.attempts += 1;
	locked.unfinishedParses = 0;
	await tx.flush();
	await queueAttempt(jobs, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
	return locked;
}

/**
 * PENDING -> PROCESSING at this attempt, reading what the attempt needs of the document and its
 * source in the same statement; undefined when the job is stale (another attempt, or the document
 * is gone or already taken). The parse is counted before it starts (unfinished_parses), so a parse
 * that takes the whole process down is counted too, and the sweeper stops re-queuing a poison document.
 */
export async function claimDocument(em: EntityManager, job: Attempt): Promise<ClaimedDocument | undefined> {
	const [row]: {
		workspace_id: string;
		filename: string;
		storage_key: string;
		source_id: string;
		embedding_provider: string;
		embedding_model: string;
		embedding_dimensions: number | null;
		vector_store: string;
		unfinished_parses: number;
	}[] = await em.getConnection().execute(
		`update knowledge_documents d set status = 'PROCESSING', processing_started_at = now(), failure_reason = null,
		   unfinished_parses = d.unfinished_parses + 1, updated_at = now()
		 from knowledge_sources s, (${RELAXED_DURABILITY}) as durability
		 where d.id = ? and d.attempts = ? and d.status = 'PENDING' and s.id = d.source_id
		 returning d.workspace_id, d.filename, d.storage_key, d.unfinished_parses, d.source_id, s.embedding_provider, s.embedding_model, s.embedding_dimensions, s.vector_store`,
		[job.documentId, job.attempt],
	);
	if (!row) return undefined;
	return {
		workspace: row.workspace_id,
		filename: row.filename,
		storageKey: row.storage_key,
		unfinishedParses: row.unfinished_parses,
		source: {
			id: row.source_id,
			workspace: row.workspace_id,
			embeddingProvider: row.embedding_provider,
			embeddingModel: row.embedding_model,
			embeddingDimensions: row.embedding_dimensions,
			vectorStore: row.vector_store,
		},
	};
}

/** The parse of this attempt finished (in whichever way): it no longer counts as one that took its process down. */
export async function markParsed(em: EntityManager, job: Attempt): Promise<void> {
	await em.getConnection().execute(`update knowledge_documents set unfinished_parses = 0 from (${RELAXED_DURABILITY}) as durability where id = ? and attempts = ?`, [
		job.documentId,
		job.attempt,
	]);
}

/**
 * READY at this attempt, on the caller's transaction (which then writes the new chunks): only if
 * the document is still at this attempt (deleted, or handed to a newer attempt by the sweeper
 * otherwise). One statement: the chunks an earlier attempt left are removed and every instance's
 * search caches are told (on commit). False when the attempt is stale.
 */
export async function markReady(connection: RawConnection, job: Attempt, chunkCount: number): Promise<boolean> {
	const current = await connection.query(
		`with ready as (
		   update knowledge_documents set status = 'READY', chunk_count = $3, processed_at = now(), updated_at = now()
		   where id = $1 and attempts = $2 and status = 'PROCESSING' returning id, source_id),
		 replaced as (delete from knowledge_chunks where document_id in (select id from ready))
		 select pg_notify($4, source_id), (${RELAXED_DURABILITY}) from ready`,
		[job.documentId, job.attempt, chunkCount, KNOWLEDGE_CHUNKS_CHANNEL.name],
	);
	return current.rows.length > 0;
}

/** FAILED with a reason the owner can act on, if still PROCESSING at this attempt; false when stale. */
export async function markFailed(em: EntityManager, job: Attempt, failure: { reason: string; unfinishedParses: number }): Promise<boolean> {
	const failed = await em.getConnection().execute(
		`update knowledge_documents set status = 'FAILED', failure_reason = ?, unfinished_parses = ?, updated_at = now()
		 where id = ? and attempts = ? and status = 'PROCESSING' returning id`,
		[failure.reason, failure.unfinishedParses, job.documentId, job.attempt],
	);
	return failed.length > 0;
}

/** Back to PENDING at a new attempt with its job, if still PROCESSING at `job.attempt` (its parser process died or was killed). */
export async function requeueDocument(orm: MikroORM, jobs: JobQueue, job: Attempt): Promise<void> {
	await orm.em.fork().transactional(async (tx) => {
		const requeued: { id: string; source_id: string; attempts: number }[] = await tx.getConnection().execute(
			`update knowledge_documents set status = 'PENDING', attempts = attempts + 1, processing_started_at = null, updated_at = now()
			 where id = ? and attempts = ? and status = 'PROCESSING' returning id, source_id, attempts`,
			[job.documentId, job.attempt],
			"all",
			tx.getTransactionContext(),
		);
		for (const document of requeued) {
			await queueAttempt(jobs, tx, { documentId: document.id, sourceId: document.source_id, attempt: document.attempts });
		}
	});
}

/**
 * Re-queues documents left PROCESSING past the deadline by a worker that died (kill -9, OOM, a
 * lost host). Each instance runs it; a transaction-scoped advisory lock lets one sweep at a time.
 * The new attempt number makes any late write from the vanished worker a no-op.
 */
export async function sweepOrphanedDocuments(
	orm: MikroORM,
	services: { jobs: JobQueue; settings: { knowledge: Pick<KnowledgeOptions, "processingTimeoutSeconds" | "parsing"> } },
): Promise<number> {
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
			await queueAttempt(services.jobs, tx, { documentId: orphan.id, sourceId: orphan.source_id, attempt: orphan.attempts });
		}
		return orphans.length;
	});
}

/**
 * Removes one document, or every document of a source, in the caller's transaction: the rows and
 * their chunks (ON DELETE CASCADE), and every instance's search caches are told (on commit). The
 * caller removes the queued jobs in the same transaction and the bytes and external vectors after it.
 */
export async function deleteDocuments(tx: EntityManager, scope: { sourceId: string; documentId?: string }): Promise<void> {
	await tx.nativeDelete(KnowledgeDocumentSchema, scope.documentId ? { id: scope.documentId, source: scope.sourceId } : { source: scope.sourceId });
	await notifyChunksChanged(tx, scope.sourceId);
}
