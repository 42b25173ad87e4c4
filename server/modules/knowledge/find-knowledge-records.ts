import type { EntityManager } from "@mikro-orm/postgresql";
import { type KnowledgeDocument, KnowledgeDocumentSchema, type KnowledgeSource, KnowledgeSourceSchema } from "../../db/entities";
import { driverQuery } from "../../db/raw-connection";
import { AppError } from "../../shared/app-error";

/** Another workspace's source is NOT_FOUND, never FORBIDDEN: ids must not leak across tenants. */
export async function findKnowledgeSource(em: EntityManager, workspaceId: string, sourceId: string): Promise<KnowledgeSource> {
	const source = await em.findOne(KnowledgeSourceSchema, { id: sourceId, workspace: workspaceId });
	if (!source) throw AppError.notFound("Knowledge source");
	return source;
}

/**
 * findKnowledgeSource for a use case that only reads the source (a search): one statement through
 * the driver, a plain record the EntityManager does not manage.
 */
export async function readKnowledgeSource(em: EntityManager, workspaceId: string, sourceId: string): Promise<KnowledgeSource> {
	const [source] = await readKnowledgeSources(em, workspaceId, [sourceId]);
	if (!source) throw AppError.notFound("Knowledge source");
	return source;
}

/** The workspace's sources among `sourceIds` (others are left out), as readKnowledgeSource reads one. */
export async function readKnowledgeSources(em: EntityManager, workspaceId: string, sourceIds: string[]): Promise<KnowledgeSource[]> {
	const rows = await driverQuery<{
		id: string;
		workspace_id: string;
		name: string;
		description: string | null;
		embedding_provider: string;
		embedding_model: string;
		embedding_dimensions: number | null;
		vector_store: string;
		created_at: Date;
		updated_at: Date;
	}>(
		em,
		`select id, workspace_id, name, description, embedding_provider, embedding_model, embedding_dimensions, vector_store, created_at, updated_at
		 from knowledge_sources where id = any($1::text[]) and workspace_id = $2`,
		[sourceIds, workspaceId],
	);
	return rows.map((row) => ({
		id: row.id,
		workspace: row.workspace_id,
		name: row.name,
		description: row.description,
		embeddingProvider: row.embedding_provider,
		embeddingModel: row.embedding_model,
		embeddingDimensions: row.embedding_dimensions,
		vectorStore: row.vector_store,
		createdAt: row.created_at,
		updatedAt: row.updated_at,
	}));
}

export interface DocumentRef {
	workspaceId: string;
	sourceId: string;
	documentId: string;
}

/** Another workspace's document (or one of another source) is NOT_FOUND: ids never leak across tenants. */
export async function findKnowledgeDocument(em: EntityManager, ref: DocumentRef, options: { lock?: boolean } = {}): Promise<KnowledgeDocument> {
	const document = await em.findOne(
		KnowledgeDocumentSchema,
		{ id: ref.documentId, source: ref.sourceId, workspace: ref.workspaceId },
		options.lock ? { lockMode: 4 /* PESSIMISTIC_WRITE */, refresh: true } : {},
	);
	if (!document) throw AppError.notFound("Knowledge document");
	return document;
}

/** Documents per source, for the sources' `documentCount`. */
export async function countKnowledgeDocuments(em: EntityManager, sourceIds: string[]): Promise<Map<string, number>> {
	if (sourceIds.length === 0) return new Map();
	const rows: { source_id: string; count: string }[] = await em
		.getConnection()
		.execute("select source_id, count(*) as count from knowledge_documents where source_id in (?) group by source_id", [sourceIds]);
	return new Map(rows.map((row) => [row.source_id, Number(row.count)]));
}

/**
 * Runs post-commit cleanups to the end even when one fails (an index outage must not leave the
 * bytes behind, nor the reverse), then reports the first failure.
 */
export async function settleAll(cleanups: Promise<unknown>[]): Promise<void> {
	const outcomes = await Promise.allSettled(cleanups);
	const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
	if (failure) throw failure.reason;
}
