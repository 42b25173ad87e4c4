import type { TKnowledgeSource } from "../../../contract/schemas/knowledge";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { countKnowledgeDocuments, findKnowledgeSource } from "./find-knowledge-records";
import { presentKnowledgeSource } from "./present";

export async function getKnowledgeSource(context: UseCaseContext, input: { workspaceId?: string; sourceId: string }): Promise<TKnowledgeSource> {
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	const source = await findKnowledgeSource(context.em, workspaceId, input.sourceId);
	const counts = await countKnowledgeDocuments(context.em, [source.id]);
	return presentKnowledgeSource(source, counts.get(source.id) ?? 0);
}
