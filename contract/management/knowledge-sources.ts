import { c, metadata } from "../common";
import { workspaceId } from "../inputs/common";
import { listOf, ZErrorEnvelope, ZListQuery } from "../schemas/common";
import { ZKnowledgeSource } from "../schemas/knowledge";
import { z } from "../zod";

/** Knowledge sources as the dashboard reads them (the draft editor attaches them to assistants), over the knowledge API's use case. */
export const knowledgeSourcesContract = c.router({
	listKnowledgeSources: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/knowledge-sources",
		summary: "The workspace's knowledge sources, newest first, a page at a time",
		pathParams: z.object({ workspaceId }),
		query: ZListQuery,
		responses: { 200: listOf(ZKnowledgeSource, "KnowledgeSourceList"), 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "listKnowledgeSources", tags: ["Knowledge"], session: "required" }),
	},
});
