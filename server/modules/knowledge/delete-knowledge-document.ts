import { deleteIngestionJobs } from "../../jobs/ingestion-job";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { deleteDocuments } from "./document-lifecycle";
import { findKnowledgeDocument, findKnowledgeSource, settleAll } from "./find-knowledge-records";

/** Deletes the document, its chunks and queued jobs, then its stored bytes and external vectors. */
export async function deleteKnowledgeDocument(context: UseCaseContext, input: { workspaceId?: string; sourceId: string; documentId: string }): Promise<{ id: string; deleted: true }> {
	const { em, services } = context;
	const ref = { ...input, workspaceId: await authorizeWorkspace(context, "knowledge:write", input.workspaceId) };
	const document = await findKnowledgeDocument(em, ref);
	await em.transactional(async (tx) => {
		await deleteIngestionJobs(tx, { documentId: document.id });
		await deleteDocuments(tx, { sourceId: document.source, documentId: document.id });
	});
	// After the commit: a failed delete leaves an orphan file or orphan vectors (never returned by
	// search, which joins the chunk rows), never a document without bytes.
	const source = await findKnowledgeSource(em, ref.workspaceId, ref.sourceId);
	await settleAll([services.vectorIndexes.forSource(em, source).deleteDocument(source.id, document.id), services.storage.delete(document.storageKey)]);
	return { id: document.id, deleted: true };
}
