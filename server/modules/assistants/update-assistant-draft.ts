import type { z } from "zod";
import { ZUpdateAssistantDraftInput } from "../../../contract/inputs/assistants";
import { type AssistantConfig, AssistantDraftSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseAssistantConfig } from "./assistant-config";
import { findAssistant } from "./find-assistant";

/** Merges `patch` into the draft; the whole result must be a valid config. */
export async function updateAssistantDraft(
	context: UseCaseContext,
	rawInput: z.input<typeof ZUpdateAssistantDraftInput>,
): Promise<{ assistantId: string; config: AssistantConfig }> {
	const { em } = context;
	const input = parseInput(ZUpdateAssistantDraftInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const assistant = await findAssistant(em, workspaceId, input.slug);
	const draft = await em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
	draft.config = parseAssistantConfig({ ...draft.config, ...input.patch });
	draft.updatedByUser = actingUserId(context);
	await em.flush();
	return { assistantId: assistant.id, config: draft.config };
}
