import type { EntityManager } from "@mikro-orm/postgresql";
import type { DocumentExtension } from "../../contract/schemas/knowledge";
import { KnowledgeDocumentSchema, KnowledgeSourceSchema } from "../db/entities";
import { rawConnection } from "../db/raw-connection";
import { extensionOf } from "./document-types";
import { newId } from "../shared/ids";
import type { Logger } from "../shared/logger";
import { chunkDocument } from "./chunk/chunk-document";
import { embedderForSource } from "./embed/embedder-for-source";
import { EmbeddingError } from "./embed/embedder";
import { encodeVector } from "./index/vector-encoding";
import type { VectorIndex } from "./index/vector-index";
import { KNOWLEDGE_CHUNKS_CHANNEL } from "./index/vector-notifications";
import type { KnowledgeServices } from "./knowledge-services";
import { IngestionError } from "./parse/parsed-document";
import { parseDocument } from "./parse/parse-document";

const INSERT_BATCH = 200;

export type IngestionOutcome = "ready" | "failed" | "stale";

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
	const claimed = await em.getConnection().execute(
		`update knowledge_documents set status = 'PROCESSING', processing_started_at = now(), failure_reason = null, updated_at = now()
		 where id = ? and attempts = ? and status = 'PENDING' returning id`,
		[job.documentId, job.attempt],
	);
	if (claimed.length === 0) return "stale";
	try {
		const document = await em.findOneOrFail(KnowledgeDocumentSchema, { id: job.documentId });
		const source = await em.findOneOrFail(KnowledgeSourceSchema, { id: document.source });
		const bytes = await services.storage.get(document.storageKey).catch((error) => {
			throw new IngestionError("The document's stored bytes are missing", { cause: error });
		});
		const parsed = await parseDocument(bytes, extensionOf(document.filename) as DocumentExtension);
		const chunks = chunkDocument(parsed);
		if (chunks.length === 0) throw new IngestionError("No text could be extracted from the document");
		const embedder = await embedderForSource(em, services.secrets, source);
		const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
		const dimensions = vectors[0].length;
		if (vectors.some((vector) => vector.length !== dimensions)) throw new IngestionError(`${embedder.name} returned vectors of mixed sizes`);
		await recordDimensions(em, source.id, dimensions, embedder.name);
		const chunkIds = chunks.map(() => newId("chk"));
		const index = services.vectorIndexes.forSource(em, source);
		if (!index.storesVectorsInChunkRows) {
			// Before the commit, so a READY document always has its vectors. Deleting by document
			// first makes a re-ingestion replace, not add to, what an earlier attempt left there.
			await writeToIndex(index, async () => {
				await index.deleteDocument(source.id, document.id);
				await index.upsert(
					source.id,
					chunkIds.map((chunkId, ordinal) => ({ chunkId, documentId: document.id, values: vectors[ordinal] })),
				);
			});
		}

		const written = await em.transactional(async (tx) => {
			const connection = await rawConnection(tx);
			const current = await connection.query(
				`select id from knowledge_documents where id = $1 and attempts = $2 and status = 'PROCESSING' for update`,
				[job.documentId, job.attempt],
			);
			// Deleted, or handed to a newer attempt by the orphan sweeper while we worked.
			if (current.rows.length === 0) return false;
			await connection.query("delete from knowledge_chunks where document_id = $1", [job.documentId]);
			for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
				const values: unknown[] = [];
				const tuples: string[] = [];
				chunks.slice(start, start + INSERT_BATCH).forEach((chunk, offset) => {
					const ordinal = start + offset;
					const base = values.length;
					tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8}::jsonb, $${base + 9}, now())`);
					const embedding = index.storesVectorsInChunkRows ? encodeVector(vectors[ordinal]) : null;
					values.push(chunkIds[ordinal], document.workspace, source.id, document.id, ordinal, chunk.text, chunk.tokenCount, JSON.stringify(chunk.location), embedding);
				});
				await connection.query(
					`insert into knowledge_chunks (id, workspace_id, source_id, document_id, ordinal, text, token_count, location, embedding, created_at) values ${tuples.join(", ")}`,
					values,
				);
			}
			await connection.query(
				`update knowledge_documents set status = 'READY', chunk_count = $2, processed_at = now(), updated_at = now() where id = $1`,
				[job.documentId, chunks.length],
			);
			await connection.query("select pg_notify($1, $2)", [KNOWLEDGE_CHUNKS_CHANNEL.name, source.id]);
			return true;
		});
		// A lost race leaves our records in an external index with no chunk rows: search never
		// returns them (it joins the rows), but they would take space and topK slots.
		if (!written && !index.storesVectorsInChunkRows) await index.deleteChunks(source.id, chunkIds).catch(() => {});
		return written ? "ready" : "stale";
	} catch (error) {
		const reason =
			error instanceof IngestionError || error instanceof EmbeddingError
				? error.message
				: "Ingestion failed unexpectedly; retry it, and report it if it fails again";
		// An IngestionError with a cause hides an infrastructure failure (store, index) the operator needs.
		if (!(error instanceof IngestionError) || error.cause) logger.error("ingestion failed", { documentId: job.documentId, attempt: job.attempt, error });
		const failed = await em.getConnection().execute(
			`update knowledge_documents set status = 'FAILED', failure_reason = ?, updated_at = now()
			 where id = ? and attempts = ? and status = 'PROCESSING' returning id`,
			[reason, job.documentId, job.attempt],
		);
		return failed.length ? "failed" : "stale";
	}
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
