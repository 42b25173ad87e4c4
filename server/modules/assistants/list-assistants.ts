import { AssistantSchema } from "../../db/entities";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type AssistantView, presentAssistant } from "./present-assistant";

/** The workspace's assistants by slug; archived ones only when asked for. */
export async function listAssistants(context: UseCaseContext, input: { workspaceId?: string; includeArchived?: boolean }): Promise<AssistantView[]> {
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistants = await context.em.find(AssistantSchema, input.includeArchived ? { workspace: workspaceId } : { workspace: workspaceId, archivedAt: null }, {
		orderBy: { slug: "asc" },
		limit: 1000,
	});
	return assistants.map(presentAssistant);
}
