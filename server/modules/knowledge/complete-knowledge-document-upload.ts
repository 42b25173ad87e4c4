import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { enqueueIngestion, INGESTION_JOB } from "../../jobs/ingestion-job";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
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
	const completed = await em.transactional(async (tx) => {
		const locked = await findKnowledgeDocument(tx, ref, { lock: true });
		// Re-checked under the lock: of two racing completes exactly one enqueues.
		if (locked.uploadedAt !== null) throw new AppError("INVALID_REQUEST", "This document's upload is already complete");
		locked.uploadedAt = new Date();
		locked.attempts += 1;
		await tx.flush();
		await enqueueIngestion(services.jobs, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
		return locked;
	});
	services.jobs.wake(INGESTION_JOB);
	return presentKnowledgeDocument(completed);
}
