import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { resolveWorkspaceId } from "../access/resolve-workspace";
import type { UseCaseContext } from "../platform-services";
import { findKnowledgeDocument } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

export async function getKnowledgeDocument(context: UseCaseContext, input: { workspaceId?: string; sourceId: string; documentId: string }): Promise<TKnowledgeDocument> {
	const workspaceId = await resolveWorkspaceId(context, input.workspaceId);
	return presentKnowledgeDocument(await findKnowledgeDocument(context.em, { ...input, workspaceId }));
}
