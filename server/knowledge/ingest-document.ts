import type { EntityManager } from "@mikro-orm/postgresql";
import type { DocumentExtension } from "../../contract/schemas/knowledge";
import type { KnowledgeSource } from "../db/entities";
import { rawConnection } from "../db/raw-connection";
import { extensionOf } from "./document-types";
import { newId } from "../shared/ids";
import type { Logger } from "../shared/logger";
import { embedderForSource } from "./embed/embedder-for-source";
import { EmbeddingError } from "./embed/embedder";
import { encodeVector } from "./index/vector-encoding";
import type { VectorIndex } from "./index/vector-index";
import { KNOWLEDGE_CHUNKS_CHANNEL } from "./index/vector-notifications";
import type { KnowledgeServices } from "./knowledge-services";
import { IngestionError } from "./parse/parsed-document";
import { ParserStoppedError } from "./parse/parser-pool";

const INSERT_BATCH = 200;

/** `interrupted`: the parse killed its parser process and may be retried; the document is still PROCESSING at this attempt. */
export type IngestionOutcome = "ready" | "failed" | "stale" | "interrupted";

/**
 * The worker's own commits (claim, parse count, chunks + READY) do not wait for the WAL to reach disk: each
 * fsync cost a document about 4 ms on this class of disk, twice, and a transaction that NOTIFYs
 * holds PostgreSQL's notify lock through its flush, so concurrent documents queued behind each
 * other's fsyncs. After a power loss (not a process crash) the last fraction of a second of these
 * commits may be lost; the database stays consistent and the document is PROCESSING again, which
 * the orphan sweeper re-queues. Uploads and state changes made through the API stay synchronous.
 */
const RELAXED_DURABILITY = "select set_config('synchronous_commit', 'off', true)";

/** What one attempt needs of its document and source, read by the claim itself. */
interface ClaimedDocument {
	workspace: string;
	filename: string;
	storageKey: string;
	/** Parses of this document begun and not finished, this one included. */
	unfinishedParses: number;
	source: Pick<KnowledgeSource, "id" | "workspace" | "embeddingProvider" | "embeddingModel" | "embeddingDimensions" | "vectorStore">;
}

/**
 * One ingestion attempt: claim (PENDING -> PROCESSING) -> parse -> chunk -> embed -> index
 * (chunks replaced and READY set in one transaction). Idempotent: every write is conditioned on
 * the document still being at this attempt, so a duplicate or late job changes nothing, and a
 * re-run replaces the chunks instead of adding to them.
 */
export async function ingestDocument(
	em: EntityManager,
	services: KnowledgeServices,
	job: { documentId: string; attempt: number },
	logger: Logger,
): Promise<IngestionOutcome> {
	// The parse is counted before it starts (unfinished_parses, by the claim), so a parse that takes
	// the whole process down is counted too, and the sweeper stops re-queuing a poison document.
	const document = await claimDocument(em, job);
	if (!document) return "stale";
	const { source, unfinishedParses } = document;
	let parseFinished = false;
	try {
		const bytes = await services.storage.get(document.storageKey).catch((error) => {
			throw new IngestionError("The document's stored bytes are missing", { cause: error });
		});
		// In a parser process, within the document's budgets: never on this event loop.
		const chunks = await services.parsers.parseAndChunk(bytes, extensionOf(document.filename) as DocumentExtension).catch((error) => {
			if (!(error instanceof ParserStoppedError)) parseFinished = true;
			throw error;
		});
		parseFinished = true;
		await em
			.getConnection()
			.execute(`update knowledge_documents set unfinished_parses = 0 from (${RELAXED_DURABILITY}) as durability where id = ? and attempts = ?`, [job.documentId, job.attempt]);
		const embedder = await embedderForSource(em, services, source);
		const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
		const dimensions = vectors[0].length;
		if (vectors.some((vector) => vector.length !== dimensions)) throw new IngestionError(`${embedder.name} returned vectors of mixed sizes`);
		if (source.embeddingDimensions !== dimensions) await recordDimensions(em, source.id, dimensions, embedder.name);
		const chunkIds = chunks.map(() => newId("chk"));
		const index = services.vectorIndexes.forSource(em, source);
		if (!index.storesVectorsInChunkRows) {
			// Before the commit, so a READY document always has its vectors. Deleting by document
			// first makes a re-ingestion replace, not add to, what an earlier attempt left there.
			await writeToIndex(index, async () => {
				await index.deleteDocument(source.id, job.documentId);
				await index.upsert(
					source.id,
					chunkIds.map((chunkId, ordinal) => ({ chunkId, documentId: job.documentId, values: vectors[ordinal] })),
				);
			});
		}

		const written = await em.transactional(async (tx) => {
			const connection = await rawConnection(tx);
			// One statement: READY only if the document is still at this attempt (deleted, or handed to a
			// newer attempt by the orphan sweeper while we worked, otherwise), then any chunks an earlier
			// attempt left are removed, and every instance's search caches are told (on commit).
			const current = await connection.query(
				`with ready as (
				   update knowledge_documents set status = 'READY', chunk_count = $3, processed_at = now(), updated_at = now()
				   where id = $1 and attempts = $2 and status = 'PROCESSING' returning id, source_id),
				 replaced as (delete from knowledge_chunks where document_id in (select id from ready))
				 select pg_notify($4, source_id), (${RELAXED_DURABILITY}) from ready`,
				[job.documentId, job.attempt, chunks.length, KNOWLEDGE_CHUNKS_CHANNEL.name],
			);
			if (current.rows.length === 0) return false;
			for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
				const values: unknown[] = [];
				const tuples: string[] = [];
				chunks.slice(start, start + INSERT_BATCH).forEach((chunk, offset) => {
					const ordinal = start + offset;
					const base = values.length;
					tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8}::jsonb, $${base + 9}, now())`);
					const embedding = index.storesVectorsInChunkRows ? encodeVector(vectors[ordinal]) : null;
					values.push(chunkIds[ordinal], document.workspace, source.id, job.documentId, ordinal, chunk.text, chunk.tokenCount, JSON.stringify(chunk.location), embedding);
				});
				await connection.query(
					`insert into knowledge_chunks (id, workspace_id, source_id, document_id, ordinal, text, token_count, location, embedding, created_at) values ${tuples.join(", ")}`,
					values,
				);
			}
			return true;
		});
		// A lost race leaves our records in an external index with no chunk rows: search never
		// returns them (it joins the rows), but they would take space and topK slots.
		if (!written && !index.storesVectorsInChunkRows) await index.deleteChunks(source.id, chunkIds).catch(() => {});
		return written ? "ready" : "stale";
	} catch (error) {
		const retries = services.settings.knowledge.parsing.retries;
		if (error instanceof ParserStoppedError && unfinishedParses <= retries) {
			logger.warn("parser stopped mid-document; the document is queued again", { documentId: job.documentId, attempt: job.attempt, reason: error.message });
			return "interrupted";
		}
		const reason =
			error instanceof ParserStoppedError
				? `${error.message}; tried ${unfinishedParses} times`
				: error instanceof IngestionError || error instanceof EmbeddingError
					? error.message
					: "Ingestion failed unexpectedly; retry it, and report it if it fails again";
		// An IngestionError with a cause hides an infrastructure failure (store, index) the operator needs.
		if (!(error instanceof IngestionError) || error.cause) logger.error("ingestion failed", { documentId: job.documentId, attempt: job.attempt, error });
		const failed = await em.getConnection().execute(
			`update knowledge_documents set status = 'FAILED', failure_reason = ?, unfinished_parses = ?, updated_at = now()
			 where id = ? and attempts = ? and status = 'PROCESSING' returning id`,
			[reason, parseFinished ? 0 : unfinishedParses, job.documentId, job.attempt],
		);
		return failed.length ? "failed" : "stale";
	}
}

/**
 * PENDING -> PROCESSING at this attempt, reading what the attempt needs of the document and its
 * source in the same statement; undefined when the job is stale (another attempt, or the document
 * is gone or already taken).
 */
async function claimDocument(em: EntityManager, job: { documentId: string; attempt: number }): Promise<ClaimedDocument | undefined> {
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

/** External index failures become a reason the owner can act on (retry); the details go to the log. */
async function writeToIndex(index: VectorIndex, write: () => Promise<void>): Promise<void> {
	try {
		await write();
	} catch (error) {
		throw new IngestionError(`The ${index.name} vector index could not store the vectors; retry the document`, { cause: error });
	}
}

/**
 * The first vector fixes the source's dimensions; a later vector of another size fails the
 * document rather than mixing spaces (a provider silently changing a model, a wrong base URL).
 */
async function recordDimensions(em: EntityManager, sourceId: string, dimensions: number, embedderName: string): Promise<void> {
	await em.getConnection().execute("update knowledge_sources set embedding_dimensions = ? where id = ? and embedding_dimensions is null", [dimensions, sourceId]);
	const [row]: { embedding_dimensions: number }[] = await em.getConnection().execute("select embedding_dimensions from knowledge_sources where id = ?", [sourceId]);
	if (row && row.embedding_dimensions !== dimensions) {
		throw new IngestionError(`${embedderName} returned ${dimensions}-dimensional vectors but this source holds ${row.embedding_dimensions}-dimensional ones`);
	}
}
