import type { z } from "zod";
import { ZGetAssistantDraftInput } from "../../../contract/inputs/assistants";
import { type AssistantConfig, AssistantDraftSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";

/** The editable working copy: what the next version will freeze. */
export async function getAssistantDraft(
	context: UseCaseContext,
	rawInput: z.input<typeof ZGetAssistantDraftInput>,
): Promise<{ assistantId: string; config: AssistantConfig; updatedAt: string; updatedByUserId: string | null }> {
	const input = parseInput(ZGetAssistantDraftInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	const draft = await context.em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
	return { assistantId: assistant.id, config: draft.config, updatedAt: draft.updatedAt.toISOString(), updatedByUserId: draft.updatedByUser };
}
