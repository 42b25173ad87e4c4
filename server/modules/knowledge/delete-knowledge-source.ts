import { KnowledgeSourceSchema } from "../../db/entities";
import { deleteIngestionJobs } from "../../jobs/ingestion-job";
import { sourceStoragePrefix } from "../../knowledge/storage/object-storage";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { deleteDocuments } from "./document-lifecycle";
import { findKnowledgeSource, settleAll } from "./find-knowledge-records";

/**
 * Deletes the source and everything in it: documents and chunks, pending ingestion jobs (in the
 * same transaction), every instance's cached vectors (NOTIFY at commit), then the stored bytes,
 * external vectors and index files once the rows are gone.
 */
export async function deleteKnowledgeSource(context: UseCaseContext, input: { workspaceId?: string; sourceId: string }): Promise<{ id: string; deleted: true }> {
	const { em, services } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:write", input.workspaceId);
	const source = await findKnowledgeSource(em, workspaceId, input.sourceId);
	await em.transactional(async (tx) => {
		await deleteIngestionJobs(tx, { sourceId: source.id });
		await deleteDocuments(tx, { sourceId: source.id });
		await tx.nativeDelete(KnowledgeSourceSchema, { id: source.id });
	});
	// After the commit: a failed delete leaves orphan files or vectors, never documents without bytes.
	await settleAll([
		services.vectorIndexes.forSource(em, source).deleteSource(source.id),
		services.search.lexical.removeIndexFiles(source.id),
		services.storage.deletePrefix(sourceStoragePrefix(source.workspace, source.id)),
	]);
	return { id: source.id, deleted: true };
}
