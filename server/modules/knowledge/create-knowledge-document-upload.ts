import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { resolveDocumentType } from "../../knowledge/document-types";
import { documentStorageKey } from "../../knowledge/storage/object-storage";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { createDocument } from "./document-lifecycle";
import { findKnowledgeSource } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";
import { ensureStorageAllowance } from "./storage-allowance";

/** Presigned flow, step (a): a PENDING document and where to PUT its bytes (spec, Knowledge rule 3). */
export async function createKnowledgeDocumentUpload(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; filename: string; contentType: string; byteSize: number },
): Promise<{ document: TKnowledgeDocument; upload: { url: string; method: "PUT"; headers: Record<string, string>; expiresAt: string } }> {
	const { em, services } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:write", input.workspaceId);
	const source = await findKnowledgeSource(em, workspaceId, input.sourceId);
	const type = resolveDocumentType(input.filename, input.contentType);
	const documentId = newId("doc");
	const storageKey = documentStorageKey(workspaceId, source.id, documentId);
	const document = await em.transactional(async (tx) => {
		// The declared size counts against the allowance from now on, before the bytes arrive.
		await ensureStorageAllowance(tx, { workspaceId, addedBytes: input.byteSize, defaultAllowanceBytes: services.settings.knowledge.storageAllowanceBytes, sizeField: "byteSize" });
		return createDocument(
			tx,
			services.jobs,
			{ id: documentId, workspaceId, sourceId: source.id, filename: input.filename, contentType: type.contentType, byteSize: input.byteSize, storageKey },
			{ uploaded: false },
		);
	});
	const target = await services.storage.createUploadTarget({
		key: storageKey,
		contentType: type.contentType,
		byteSize: input.byteSize,
		expiresInSeconds: services.settings.knowledge.uploadUrlTtlSeconds,
	});
	return {
		document: presentKnowledgeDocument(document),
		upload: { url: target.url, method: "PUT", headers: target.headers, expiresAt: target.expiresAt.toISOString() },
	};
}
