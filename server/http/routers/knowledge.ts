import { initServer } from "@ts-rest/express";
import { knowledgeContract } from "../../../contract/knowledge";
import type { KnowledgeServices } from "../../knowledge/knowledge-services";
import { searchKnowledge } from "../../knowledge/search/search-knowledge";
import {
	completeKnowledgeDocumentUpload,
	createKnowledgeDocumentUpload,
	deleteKnowledgeDocument,
	getKnowledgeDocument,
	listKnowledgeDocuments,
	retryKnowledgeDocument,
	uploadKnowledgeDocument,
} from "../../modules/knowledge/knowledge-documents";
import {
	createKnowledgeSource,
	deleteKnowledgeSource,
	getKnowledgeSource,
	listKnowledgeSources,
} from "../../modules/knowledge/knowledge-sources";
import { type HttpDependencies, principalOf } from "../context";

/** Every knowledge route of the contract. */
export const knowledgeRoutes = knowledgeContract;

export function createKnowledgeRouter({ orm, knowledge }: HttpDependencies) {
	const services = (): KnowledgeServices => {
		if (!knowledge) throw new Error("Knowledge services are not configured");
		return knowledge.services;
	};
	const workspaceOf = (req: Express.Request) => principalOf(req).workspaceId;
	return initServer().router(knowledgeRoutes, {
		createSource: async ({ body, req }) => ({
			status: 201,
			body: await createKnowledgeSource(orm.em.fork(), { workspaceId: workspaceOf(req), ...body }, knowledge?.services),
		}),
		listSources: async ({ query, req }) => ({
			status: 200,
			body: await listKnowledgeSources(orm.em.fork(), { workspaceId: workspaceOf(req), ...query }),
		}),
		getSource: async ({ params, req }) => ({
			status: 200,
			body: await getKnowledgeSource(orm.em.fork(), { workspaceId: workspaceOf(req), sourceId: params.sourceId }),
		}),
		deleteSource: async ({ params, req }) => ({
			status: 200,
			body: await deleteKnowledgeSource(orm.em.fork(), { workspaceId: workspaceOf(req), sourceId: params.sourceId }, knowledge?.services),
		}),
		listDocuments: async ({ params, query, req }) => ({
			status: 200,
			body: await listKnowledgeDocuments(orm.em.fork(), { workspaceId: workspaceOf(req), sourceId: params.sourceId, ...query }),
		}),
		getDocument: async ({ params, req }) => ({
			status: 200,
			body: await getKnowledgeDocument(orm.em.fork(), { workspaceId: workspaceOf(req), ...params }),
		}),
		uploadDocument: async ({ params, body, req }) => ({
			status: 201,
			body: await uploadKnowledgeDocument(orm.em.fork(), services(), { workspaceId: workspaceOf(req), sourceId: params.sourceId, ...body }),
		}),
		createDocumentUpload: async ({ params, body, req }) => ({
			status: 201,
			body: await createKnowledgeDocumentUpload(orm.em.fork(), services(), { workspaceId: workspaceOf(req), sourceId: params.sourceId, ...body }),
		}),
		completeDocumentUpload: async ({ params, req }) => ({
			status: 200,
			body: await completeKnowledgeDocumentUpload(orm.em.fork(), services(), { workspaceId: workspaceOf(req), ...params }),
		}),
		retryDocument: async ({ params, req }) => ({
			status: 200,
			body: await retryKnowledgeDocument(orm.em.fork(), services(), { workspaceId: workspaceOf(req), ...params }),
		}),
		deleteDocument: async ({ params, req }) => ({
			status: 200,
			body: await deleteKnowledgeDocument(orm.em.fork(), services(), { workspaceId: workspaceOf(req), ...params }),
		}),
		search: async ({ params, body, req }) => ({
			status: 200,
			body: { data: await searchKnowledge(orm.em.fork(), { workspaceId: workspaceOf(req), sourceId: params.sourceId, ...body }) },
		}),
	});
}
