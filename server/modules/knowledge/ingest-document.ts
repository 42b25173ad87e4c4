import type { EntityManager } from "@mikro-orm/postgresql";
import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import { rawConnection } from "../../db/raw-connection";
import type { Chunk } from "../../knowledge/chunk/chunk-document";
import { extensionOf } from "../../knowledge/document-types";
import { dimensionMismatch, EmbeddingError } from "../../knowledge/embed/embedder";
import { embedderForSource } from "../../knowledge/embed/embedder-for-source";
import { encodeVector } from "../../knowledge/index/vector-encoding";
import type { VectorIndex } from "../../knowledge/index/vector-index";
import type { KnowledgeServices } from "../../knowledge/knowledge-services";
import { IngestionError } from "../../knowledge/parse/parsed-document";
import { ParserStoppedError } from "../../knowledge/parse/parser-pool";
import { newId } from "../../shared/ids";
import type { Logger } from "../../shared/logger";
import { type ClaimedDocument, claimDocument, markFailed, markParsed, markReady } from "./document-lifecycle";

const INSERT_BATCH = 200;

/** `interrupted`: the parse killed its parser process and may be retried; the document is still PROCESSING at this attempt. */
export type IngestionOutcome = "ready" | "failed" | "stale" | "interrupted";

/** What the steps of one attempt hand each other. */
interface Attempt {
	em: EntityManager;
	services: KnowledgeServices;
	job: { documentId: string; attempt: number };
	document: ClaimedDocument;
	bytes?: Uint8Array;
	chunks?: Chunk[];
	/** Set once the parse ended other than by its parser process stopping. */
	parseFinished: boolean;
	vectors?: Float32Array[];
	chunkIds?: string[];
	index?: VectorIndex;
	/** False when a newer attempt (or a deletion) overtook this one. */
	written?: boolean;
}

interface IngestionStep {
	name: string;
	run(attempt: Attempt): Promise<void>;
}

/**
 * Ingestion, in order, after the claim (PENDING -> PROCESSING, document-lifecycle.ts). Each step
 * reads what the earlier ones left on the attempt; the first that throws ends the attempt, and
 * ingestDocument decides between FAILED and another attempt.
 */
const INGESTION_STEPS: readonly IngestionStep[] = [
	{
		name: "read the stored bytes",
		async run(attempt) {
			attempt.bytes = await attempt.services.storage.get(attempt.document.storageKey).catch((error) => {
				throw new IngestionError("The document's stored bytes are missing", { cause: error });
			});
		},
	},
	{
		name: "parse and chunk",
		async run(attempt) {
			// In a parser process, within the document's budgets: never on this event loop.
			attempt.chunks = await attempt.services.parsers
				.parseAndChunk(attempt.bytes as Uint8Array, extensionOf(attempt.document.filename) as DocumentExtension)
				.catch((error) => {
					if (!(error instanceof ParserStoppedError)) attempt.parseFinished = true;
					throw error;
				});
			attempt.parseFinished = true;
			attempt.bytes = undefined;
			await markParsed(attempt.em, attempt.job);
		},
	},
	{
		name: "embed",
		async run(attempt) {
			const { em, services, document } = attempt;
			const chunks = attempt.chunks as Chunk[];
			const embedder = await embedderForSource(em, services, document.source);
			const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
			const dimensions = vectors[0].length;
			if (vectors.some((vector) => vector.length !== dimensions)) throw new IngestionError(`${embedder.name} returned vectors of mixed sizes`);
			if (document.source.embeddingDimensions !== dimensions) await recordDimensions(em, document.source.id, dimensions, embedder.name);
			attempt.vectors = vectors;
			attempt.chunkIds = chunks.map(() => newId("chk"));
		},
	},
	{
		name: "store the vectors in an external index",
		async run(attempt) {
			const { em, services, document, job } = attempt;
			const index = services.vectorIndexes.forSource(em, document.source);
			attempt.index = index;
			if (index.storesVectorsInChunkRows) return;
			const vectors = attempt.vectors as Float32Array[];
			// Before the commit, so a READY document always has its vectors. Deleting by document
			// first makes a re-ingestion replace, not add to, what an earlier attempt left there.
			await writeToIndex(index, async () => {
				await index.deleteDocument(document.source.id, job.documentId);
				await index.upsert(
					document.source.id,
					(attempt.chunkIds as string[]).map((chunkId, ordinal) => ({ chunkId, documentId: job.documentId, values: vectors[ordinal] })),
				);
			});
		},
	},
	{
		name: "write the chunks and mark the document READY",
		async run(attempt) {
			const { em, job, document } = attempt;
			const chunks = attempt.chunks as Chunk[];
			const vectors = attempt.vectors as Float32Array[];
			const chunkIds = attempt.chunkIds as string[];
			const index = attempt.index as VectorIndex;
			attempt.written = await em.transactional(async (tx) => {
				const connection = await rawConnection(tx);
				if (!(await markReady(connection, job, chunks.length))) return false;
				for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
					const values: unknown[] = [];
					const tuples: string[] = [];
					chunks.slice(start, start + INSERT_BATCH).forEach((chunk, offset) => {
						const ordinal = start + offset;
						const base = values.length;
						tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8}::jsonb, $${base + 9}, now())`);
						const embedding = index.storesVectorsInChunkRows ? encodeVector(vectors[ordinal]) : null;
						values.push(chunkIds[ordinal], document.workspace, document.source.id, job.documentId, ordinal, chunk.text, chunk.tokenCount, JSON.stringify(chunk.location), embedding);
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
			if (!attempt.written && !index.storesVectorsInChunkRows) await index.deleteChunks(document.source.id, chunkIds).catch(() => {});
		},
	},
	{
		name: "keep the source's index files current",
		async run(attempt) {
			if (!attempt.written) return;
			const { document, services } = attempt;
			// In the background (index-file-upkeep.ts): the document is READY now, whatever becomes of the files.
			services.search.upkeep.documentReady({
				id: document.source.id,
				workspace: document.workspace,
				vectorsInChunkRows: (attempt.index as VectorIndex).storesVectorsInChunkRows,
				denseQueries: document.source.embeddingProvider !== "builtin",
			});
		},
	},
];

/**
 * One ingestion attempt: the claim, then INGESTION_STEPS. Idempotent: every write is conditioned
 * on the document still being at this attempt, so a duplicate or late job changes nothing, and a
 * re-run replaces the chunks instead of adding to them.
 */
export async function ingestDocument(
	em: EntityManager,
	services: KnowledgeServices,
	job: { documentId: string; attempt: number },
	logger: Logger,
): Promise<IngestionOutcome> {
	const document = await claimDocument(em, job);
	if (!document) return "stale";
	const attempt: Attempt = { em, services, job, document, parseFinished: false };
	let step = INGESTION_STEPS[0];
	try {
		for (step of INGESTION_STEPS) await step.run(attempt);
		return attempt.written ? "ready" : "stale";
	} catch (error) {
		const { unfinishedParses } = document;
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
		if (!(error instanceof IngestionError) || error.cause) logger.error("ingestion failed", { documentId: job.documentId, attempt: job.attempt, step: step.name, error });
		const failed = await markFailed(em, job, { reason, unfinishedParses: attempt.parseFinished ? 0 : unfinishedParses });
		return failed ? "failed" : "stale";
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
		throw new IngestionError(dimensionMismatch(embedderName, dimensions, row.embedding_dimensions));
	}
}
