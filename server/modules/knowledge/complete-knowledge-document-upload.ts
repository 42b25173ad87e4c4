import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { INGESTION_JOB } from "../../jobs/ingestion-job";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { completeUpload } from "./document-lifecycle";
import { findKnowledgeDocument } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

/** Presigned flow, step (c): checks the stored bytes match the declaration, then enqueues ingestion. */
export async function completeKnowledgeDocumentUpload(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; documentId: string },
): Promise<TKnowledgeDocument> {
	const { em, services } = context;
	const ref = { ...input, workspaceId: await authorizeWorkspace(context, "knowledge:write", input.workspaceId) };
	const document = await findKnowledgeDocument(em, ref);
	if (document.uploadedAt !== null) throw new AppError("INVALID_REQUEST", "This document's upload is already complete");
	const stored = await services.storage.size(document.storageKey);
	if (stored === null) throw new AppError("INVALID_REQUEST", "No bytes were uploaded yet: PUT the file to upload.url with upload.headers first");
	if (stored !== document.byteSize) {
		throw new AppError("INVALID_REQUEST", `The uploaded file has ${stored} bytes but ${document.byteSize} were declared`);
	}
	// Re-checked under the lock by completeUpload: of two racing completes exactly one queues.
	const completed = await em.transactional((tx) => completeUpload(tx, services.jobs, ref));
	services.jobs.wake(INGESTION_JOB);
	return presentKnowledgeDocument(completed);
}
