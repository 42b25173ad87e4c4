import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findKnowledgeDocument } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

export async function getKnowledgeDocument(context: UseCaseContext, input: { workspaceId?: string; sourceId: string; documentId: string }): Promise<TKnowledgeDocument> {
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	return presentKnowledgeDocument(await findKnowledgeDocument(context.em, { ...input, workspaceId }));
}
