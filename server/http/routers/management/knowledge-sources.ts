import { knowledgeSourcesContract } from "../../../../contract/management/knowledge-sources";
import { completeKnowledgeDocumentUpload } from "../../../modules/knowledge/complete-knowledge-document-upload";
import { createKnowledgeDocumentUpload } from "../../../modules/knowledge/create-knowledge-document-upload";
import { createKnowledgeSource } from "../../../modules/knowledge/create-knowledge-source";
import { deleteKnowledgeDocument } from "../../../modules/knowledge/delete-knowledge-document";
import { deleteKnowledgeSource } from "../../../modules/knowledge/delete-knowledge-source";
import { downloadKnowledgeDocument } from "../../../modules/knowledge/download-knowledge-document";
import { getKnowledgeSource } from "../../../modules/knowledge/get-knowledge-source";
import { listKnowledgeDocuments } from "../../../modules/knowledge/list-knowledge-documents";
import { listKnowledgeSources } from "../../../modules/knowledge/list-knowledge-sources";
import { retryKnowledgeDocument } from "../../../modules/knowledge/retry-knowledge-document";
import { searchKnowledgeSource } from "../../../modules/knowledge/search-knowledge-source";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** The dashboard's knowledge pages, over the knowledge API's use cases (the same ones the MCP knowledge tools call). */
export function knowledgeSourceRoutes(): RouteDefinition[] {
	const k = knowledgeSourcesContract;
	return [
		contractRoute(k.listKnowledgeSources, async ({ context, params, query }) => ({ status: 200, body: await listKnowledgeSources(context, { ...params, ...query }) })),
		contractRoute(k.createKnowledgeSource, async ({ context, params, body }) => ({ status: 201, body: await createKnowledgeSource(context, { ...params, ...body }) })),
		contractRoute(k.getKnowledgeSource, async ({ context, params }) => ({ status: 200, body: await getKnowledgeSource(context, params) })),
		contractRoute(k.deleteKnowledgeSource, async ({ context, params }) => ({ status: 200, body: await deleteKnowledgeSource(context, params) })),
		contractRoute(k.listKnowledgeDocuments, async ({ context, params, query }) => ({ status: 200, body: await listKnowledgeDocuments(context, { ...params, ...query }) })),
		contractRoute(k.createKnowledgeDocumentUpload, async ({ context, params, body }) => ({ status: 201, body: await createKnowledgeDocumentUpload(context, { ...params, ...body }) })),
		contractRoute(k.completeKnowledgeDocumentUpload, async ({ context, params }) => ({ status: 200, body: await completeKnowledgeDocumentUpload(context, params) })),
		contractRoute(k.retryKnowledgeDocument, async ({ context, params }) => ({ status: 200, body: await retryKnowledgeDocument(context, params) })),
		contractRoute(k.deleteKnowledgeDocument, async ({ context, params }) => ({ status: 200, body: await deleteKnowledgeDocument(context, params) })),
		contractRoute(k.downloadKnowledgeDocument, async ({ context, params }) => ({ status: 200, body: await downloadKnowledgeDocument(context, params) })),
		contractRoute(k.searchKnowledgeSource, async ({ context, params, query }) => ({ status: 200, body: { data: await searchKnowledgeSource(context, { ...params, ...query }) } })),
	];
}
