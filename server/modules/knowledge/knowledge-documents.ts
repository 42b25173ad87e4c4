import type { EntityManager } from "@mikro-orm/postgresql";
import { MAX_DIRECT_UPLOAD_BYTES, type TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { type KnowledgeDocument, KnowledgeDocumentSchema, WorkspaceSchema } from "../../db/entities";
import { deleteIngestionJobs, enqueueIngestion } from "../../jobs/ingestion-job";
import { notifyVectorsChanged } from "../../knowledge/index/vector-notifications";
import type { KnowledgeServices } from "../../knowledge/knowledge-services";
import { documentStorageKey } from "../../knowledge/storage/object-storage";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { decodeCursor, type Page, toPage } from "../../shared/pagination";
import { decodeBase64, resolveDocumentType } from "./document-types";
import { findKnowledgeSource, settleAll } from "./knowledge-sources";
import { presentKnowledgeDocument } from "./present";

interface DocumentRef {
	workspaceId: string;
	sourceId: string;
	documentId: string;
}

/** Another workspace's document (or one of another source) is NOT_FOUND: ids never leak across tenants. */
async function findDocument(em: EntityManager, ref: DocumentRef, options: { lock?: boolean } = {}): Promise<KnowledgeDocument> {
	const document = await em.findOne(
		KnowledgeDocumentSchema,
		{ id: ref.documentId, source: ref.sourceId, workspace: ref.workspaceId },
		options.lock ? { lockMode: 4 /* PESSIMISTIC_WRITE */, refresh: true } : {},
	);
	if (!document) throw AppError.notFound("Knowledge document");
	return document;
}

/**
 * Refuses a new document that would take the workspace past its allowance. Called inside the
 * creating transaction with the workspace row locked, so concurrent uploads cannot both squeeze in.
 */
async function ensureStorageAllowance(tx: EntityManager, services: KnowledgeServices, workspaceId: string, addedBytes: number): Promise<void> {
	await tx.getConnection().execute("select id from workspaces where id = ? for update", [workspaceId], "all", tx.getTransactionContext());
	const workspace = await tx.findOneOrFail(WorkspaceSchema, { id: workspaceId });
	const allowance = workspace.storageAllowanceBytes ?? services.options.storageAllowanceBytes;
	const [row]: { used: string | null }[] = await tx
		.getConnection()
		.execute("select sum(byte_size) as used from knowledge_documents where workspace_id = ?", [workspaceId], "all", tx.getTransactionContext());
	const used = Number(row?.used ?? 0);
	if (used + addedBytes > allowance) {
		throw new AppError(
			"STORAGE_QUOTA_EXCEEDED",
			`This document (${addedBytes} bytes) would exceed the workspace's knowledge storage allowance (${used} of ${allowance} bytes used)`,
		);
	}
}

export async function uploadKnowledgeDocument(
	em: EntityManager,
	services: KnowledgeServices,
	input: { workspaceId: string; sourceId: string; filename: string; contentBase64: string; contentType?: string },
): Promise<TKnowledgeDocument> {
	const source = await findKnowledgeSource(em, input.workspaceId, input.sourceId);
	const type = resolveDocumentType(input.filename, input.contentType);
	const bytes = decodeBase64(input.contentBase64);
	if (!bytes) throw AppError.validation([{ field: "contentBase64", issue: "Not valid base64" }], "contentBase64 does not decode");
	if (bytes.length > MAX_DIRECT_UPLOAD_BYTES) {
		throw AppError.validation(
			[{ field: "contentBase64", issue: `Decodes to ${bytes.length} bytes; direct uploads take at most ${MAX_DIRECT_UPLOAD_BYTES} (use the presigned flow)` }],
			"File too large for a direct upload",
		);
	}
	const documentId = newId("doc");
	const storageKey = documentStorageKey(input.workspaceId, source.id, documentId);
	// Bytes first: a committed document always has its bytes; bytes of a failed commit are removed below.
	await services.storage.put(storageKey, bytes, type.contentType);
	try {
		const document = await em.transactional(async (tx) => {
			await ensureStorageAllowance(tx, services, input.workspaceId, bytes.length);
			const created = tx.create(KnowledgeDocumentSchema, {
				id: documentId,
				workspace: input.workspaceId,
				source: source.id,
				filename: input.filename,
				contentType: type.contentType,
				byteSize: bytes.length,
				storageKey,
				status: "PENDING",
				failureReason: null,
				chunkCount: 0,
				attempts: 1,
				uploadedAt: new Date(),
				processingStartedAt: null,
				processedAt: null,
			});
			await tx.flush();
			await enqueueIngestion(services.boss, tx, { documentId, sourceId: source.id, attempt: 1 });
			return created;
		});
		services.wakeWorkers?.();
		return presentKnowledgeDocument(document);
	} catch (error) {
		await services.storage.delete(storageKey).catch(() => {});
		throw error;
	}
}

export async function createKnowledgeDocumentUpload(
	em: EntityManager,
	services: KnowledgeServices,
	input: { workspaceId: string; sourceId: string; filename: string; contentType: string; byteSize: number },
): Promise<{ document: TKnowledgeDocument; upload: { url: string; method: "PUT"; headers: Record<string, string>; expiresAt: string } }> {
	const source = await findKnowledgeSource(em, input.workspaceId, input.sourceId);
	const type = resolveDocumentType(input.filename, input.contentType);
	const documentId = newId("doc");
	const storageKey = documentStorageKey(input.workspaceId, source.id, documentId);
	const document = await em.transactional(async (tx) => {
		// The declared size counts against the allowance from now on, before the bytes arrive.
		await ensureStorageAllowance(tx, services, input.workspaceId, input.byteSize);
		return tx.create(KnowledgeDocumentSchema, {
			id: documentId,
			workspace: input.workspaceId,
			source: source.id,
			filename: input.filename,
			contentType: type.contentType,
			byteSize: input.byteSize,
			storageKey,
			status: "PENDING",
			failureReason: null,
			chunkCount: 0,
			attempts: 0,
			uploadedAt: null,
			processingStartedAt: null,
			processedAt: null,
		});
	});
	const target = await services.storage.createUploadTarget({
		key: storageKey,
		contentType: type.contentType,
		byteSize: input.byteSize,
		expiresInSeconds: services.options.uploadUrlTtlSeconds,
	});
	return {
		document: presentKnowledgeDocument(document),
		upload: { url: target.url, method: "PUT", headers: target.headers, expiresAt: target.expiresAt.toISOString() },
	};
}

export async function completeKnowledgeDocumentUpload(em: EntityManager, services: KnowledgeServices, ref: DocumentRef): Promise<TKnowledgeDocument> {
	const document = await findDocument(em, ref);
	if (document.uploadedAt !== null) throw new AppError("INVALID_STATE", "This document's upload is already complete");
	const stored = await services.storage.size(document.storageKey);
	if (stored === null) throw new AppError("INVALID_REQUEST", "No bytes were uploaded yet: PUT the file to upload.url with upload.headers first");
	if (stored !== document.byteSize) {
		throw new AppError("INVALID_REQUEST", `The uploaded file has ${stored} bytes but ${document.byteSize} were declared`);
	}
	const completed = await em.transactional(async (tx) => {
		const locked = await findDocument(tx, ref, { lock: true });
		// Re-checked under the lock: of two racing completes exactly one enqueues.
		if (locked.uploadedAt !== null) throw new AppError("INVALID_STATE", "This document's upload is already complete");
		locked.uploadedAt = new Date();
		locked.attempts += 1;
		await tx.flush();
		await enqueueIngestion(services.boss, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
		return locked;
	});
	services.wakeWorkers?.();
	return presentKnowledgeDocument(completed);
}

export async function retryKnowledgeDocument(em: EntityManager, services: KnowledgeServices, ref: DocumentRef): Promise<TKnowledgeDocument> {
	await findDocument(em, ref);
	const retried = await em.transactional(async (tx) => {
		const locked = await findDocument(tx, ref, { lock: true });
		if (locked.status !== "FAILED") throw new AppError("INVALID_STATE", `Only a FAILED document can be retried; this one is ${locked.status}`);
		locked.status = "PENDING";
		locked.failureReason = null;
		locked.processingStartedAt = null;
		locked.attempts += 1;
		await tx.flush();
		await enqueueIngestion(services.boss, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
		return locked;
	});
	services.wakeWorkers?.();
	return presentKnowledgeDocument(retried);
}

export async function getKnowledgeDocument(em: EntityManager, ref: DocumentRef): Promise<TKnowledgeDocument> {
	return presentKnowledgeDocument(await findDocument(em, ref));
}

export async function listKnowledgeDocuments(
	em: EntityManager,
	input: { workspaceId: string; sourceId: string; limit: number; cursor?: string },
): Promise<Page<TKnowledgeDocument>> {
	const source = await findKnowledgeSource(em, input.workspaceId, input.sourceId);
	const before = decodeCursor(input.cursor);
	const rows = await em.find(
		KnowledgeDocumentSchema,
		before ? { source: source.id, id: { $lt: before } } : { source: source.id },
		{ orderBy: { id: "desc" }, limit: input.limit + 1 },
	);
	return toPage(rows, input.limit, presentKnowledgeDocument);
}

export async function deleteKnowledgeDocument(em: EntityManager, services: KnowledgeServices, ref: DocumentRef): Promise<{ id: string; deleted: true }> {
	const document = await findDocument(em, ref);
	await em.transactional(async (tx) => {
		await deleteIngestionJobs(services.boss, tx, { documentId: document.id });
		// Chunks (text and vectors) go with the row through ON DELETE CASCADE.
		await tx.nativeDelete(KnowledgeDocumentSchema, { id: document.id });
		await notifyVectorsChanged(tx, document.source);
	});
	// After the commit: a failed delete leaves an orphan file or orphan vectors (never returned by
	// search, which joins the chunk rows), never a document without bytes.
	const source = await findKnowledgeSource(em, ref.workspaceId, ref.sourceId);
	await settleAll([services.vectorIndexes.forSource(em, source).deleteDocument(source.id, document.id), services.storage.delete(document.storageKey)]);
	return { id: document.id, deleted: true };
}
