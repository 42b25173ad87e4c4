import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findKnowledgeDocument } from "./find-knowledge-records";

/** Past this a document is better fetched another way than through one tool answer. */
export const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-ndjson|yaml|x-yaml)\b)/;

/** The stored bytes of a document as uploaded: text types as text, anything else base64-encoded. */
export async function downloadKnowledgeDocument(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; documentId: string },
): Promise<{ documentId: string; filename: string; contentType: string; byteSize: number; encoding: "text" | "base64"; content: string }> {
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	const document = await findKnowledgeDocument(context.em, { ...input, workspaceId });
	if (document.byteSize > MAX_DOWNLOAD_BYTES) {
		throw new AppError("PAYLOAD_TOO_LARGE", `The document is ${document.byteSize} bytes; downloads through a tool take at most ${MAX_DOWNLOAD_BYTES}`);
	}
	const bytes = await context.services.storage.get(document.storageKey);
	const isText = TEXT_TYPES.test(document.contentType);
	return {
		documentId: document.id,
		filename: document.filename,
		contentType: document.contentType,
		byteSize: bytes.length,
		encoding: isText ? "text" : "base64",
		content: isText ? bytes.toString("utf8") : bytes.toString("base64"),
	};
}
