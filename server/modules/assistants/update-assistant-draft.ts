import { type AssistantConfig, AssistantDraftSchema } from "../../db/entities";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseAssistantConfig } from "./assistant-config";
import { findAssistant } from "./find-assistant";

/** Merges `patch` into the draft; the whole result must be a valid config. */
export async function updateAssistantDraft(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; patch: Partial<AssistantConfig> },
): Promise<{ assistantId: string; config: AssistantConfig }> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const assistant = await findAssistant(em, workspaceId, input.slug);
	const draft = await em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
	draft.config = parseAssistantConfig({ ...draft.config, ...input.patch });
	draft.updatedByUser = actingUserId(context);
	await em.flush();
	return { assistantId: assistant.id, config: draft.config };
}
