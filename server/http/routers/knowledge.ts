import { knowledgeContract } from "../../../contract/knowledge";
import { completeKnowledgeDocumentUpload } from "../../modules/knowledge/complete-knowledge-document-upload";
import { createKnowledgeDocumentUpload } from "../../modules/knowledge/create-knowledge-document-upload";
import { createKnowledgeSource } from "../../modules/knowledge/create-knowledge-source";
import { deleteKnowledgeDocument } from "../../modules/knowledge/delete-knowledge-document";
import { deleteKnowledgeSource } from "../../modules/knowledge/delete-knowledge-source";
import { getKnowledgeDocument } from "../../modules/knowledge/get-knowledge-document";
import { getKnowledgeSource } from "../../modules/knowledge/get-knowledge-source";
import { listKnowledgeDocuments } from "../../modules/knowledge/list-knowledge-documents";
import { listKnowledgeSources } from "../../modules/knowledge/list-knowledge-sources";
import { retryKnowledgeDocument } from "../../modules/knowledge/retry-knowledge-document";
import { searchKnowledgeSource } from "../../modules/knowledge/search-knowledge-source";
import { uploadKnowledgeDocument } from "../../modules/knowledge/upload-knowledge-document";
import { contractRoute, type RouteDefinition } from "../pipeline";

/** Every knowledge route of the contract: one use case each, in the key's own workspace. */
export function knowledgeRoutes(): RouteDefinition[] {
	const k = knowledgeContract;
	return [
		contractRoute(k.createSource, async ({ context, body }) => ({ status: 201, body: await createKnowledgeSource(context, body) })),
		contractRoute(k.listSources, async ({ context, query }) => ({ status: 200, body: await listKnowledgeSources(context, query) })),
		contractRoute(k.getSource, async ({ context, params }) => ({ status: 200, body: await getKnowledgeSource(context, params) })),
		contractRoute(k.deleteSource, async ({ context, params }) => ({ status: 200, body: await deleteKnowledgeSource(context, params) })),
		contractRoute(k.listDocuments, async ({ context, params, query }) => ({ status: 200, body: await listKnowledgeDocuments(context, { ...params, ...query }) })),
		contractRoute(k.getDocument, async ({ context, params }) => ({ status: 200, body: await getKnowledgeDocument(context, params) })),
		contractRoute(k.uploadDocument, async ({ context, params, body, decodedBase64 }) => {
			// The pipeline decoded the file off the event loop (pipeline.ts, readBody); the body holds "" in its place.
			const { contentBase64, ...rest } = body;
			const content = decodedBase64 ? { decodedBase64: decodedBase64.bytes } : { contentBase64 };
			return { status: 201, body: await uploadKnowledgeDocument(context, { ...params, ...rest, ...content }) };
		}),
		contractRoute(k.createDocumentUpload, async ({ context, params, body }) => ({ status: 201, body: await createKnowledgeDocumentUpload(context, { ...params, ...body }) })),
		contractRoute(k.completeDocumentUpload, async ({ context, params }) => ({ status: 200, body: await completeKnowledgeDocumentUpload(context, params) })),
		contractRoute(k.retryDocument, async ({ context, params }) => ({ status: 200, body: await retryKnowledgeDocument(context, params) })),
		contractRoute(k.deleteDocument, async ({ context, params }) => ({ status: 200, body: await deleteKnowledgeDocument(context, params) })),
		contractRoute(k.search, async ({ context, params, query }) => ({ status: 200, body: { data: await searchKnowledgeSource(context, { ...params, ...query }) } })),
	];
}
