import { AssistantVersionSchema } from "../../db/entities";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantVersionView, presentAssistantVersion } from "./present-assistant";

/** Newest first. */
export async function listAssistantVersions(context: UseCaseContext, input: { workspaceId?: string; slug: string; limit?: number }): Promise<AssistantVersionView[]> {
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	const versions = await context.em.find(AssistantVersionSchema, { assistant: assistant.id }, { orderBy: { version: "desc" }, limit: input.limit ?? 100 });
	return versions.map(presentAssistantVersion);
}
