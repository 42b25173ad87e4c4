import { MAX_DIRECT_UPLOAD_BYTES, type TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { INGESTION_JOB } from "../../jobs/ingestion-job";
import { decodeBase64, resolveDocumentType } from "../../knowledge/document-types";
import { documentStorageKey } from "../../knowledge/storage/object-storage";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { createDocument } from "./document-lifecycle";
import { findKnowledgeSource } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";
import { ensureStorageAllowance } from "./storage-allowance";

/**
 * The file as the caller sent it: in base64, already decoded by the transport (HTTP decodes a
 * direct upload's body off the event loop; null when it did not decode), or as text (an MCP tool's
 * inline document), stored as its UTF-8 bytes. The errors name the field the caller filled:
 * `contentBase64`, or `text`.
 */
export type UploadedContent = { contentBase64: string } | { decodedBase64: Buffer | null } | { text: string };

/** Direct upload: bytes in the request, stored, then ingestion enqueued with the document's creation. */
export async function uploadKnowledgeDocument(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; filename: string; contentType?: string } & UploadedContent,
): Promise<TKnowledgeDocument> {
	const { em, services } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:write", input.workspaceId);
	const source = await findKnowledgeSource(em, workspaceId, input.sourceId);
	const type = resolveDocumentType(input.filename, input.contentType);
	const field = "text" in input ? "text" : "contentBase64";
	const bytes = "text" in input ? Buffer.from(input.text, "utf8") : "decodedBase64" in input ? input.decodedBase64 : decodeBase64(input.contentBase64);
	if (!bytes) throw AppError.validation([{ field, issue: "Not valid base64" }], "contentBase64 does not decode");
	if (bytes.length > MAX_DIRECT_UPLOAD_BYTES) {
		const size = "text" in input ? `Is ${bytes.length} bytes in UTF-8` : `Decodes to ${bytes.length} bytes`;
		throw AppError.validation([{ field, issue: `${size}; direct uploads take at most ${MAX_DIRECT_UPLOAD_BYTES} (use the presigned flow)` }], "File too large for a direct upload");
	}
	const documentId = newId("doc");
	const storageKey = documentStorageKey(workspaceId, source.id, documentId);
	// Bytes first: a committed document always has its bytes; bytes of a failed commit are removed below.
	await services.storage.put(storageKey, bytes, type.contentType);
	try {
		const document = await em.transactional(async (tx) => {
			await ensureStorageAllowance(tx, { workspaceId, addedBytes: bytes.length, defaultAllowanceBytes: services.settings.knowledge.storageAllowanceBytes, sizeField: field });
			return createDocument(
				tx,
				services.jobs,
				{ id: documentId, workspaceId, sourceId: source.id, filename: input.filename, contentType: type.contentType, byteSize: bytes.length, storageKey },
				{ uploaded: true },
			);
		});
		services.jobs.wake(INGESTION_JOB);
		return presentKnowledgeDocument(document);
	} catch (error) {
		await services.storage.delete(storageKey).catch(() => {});
		throw error;
	}
}
