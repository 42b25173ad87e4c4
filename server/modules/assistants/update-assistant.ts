import type { z } from "zod";
import { ZUpdateAssistantInput } from "../../../contract/inputs/assistants";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantView, presentAssistant } from "./present-assistant";

/** Name and description; the slug is how callers reach the assistant, so it never changes. */
export async function updateAssistant(
	context: UseCaseContext,
	rawInput: z.input<typeof ZUpdateAssistantInput>,
): Promise<AssistantView> {
	const input = parseInput(ZUpdateAssistantInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	if (input.name !== undefined) assistant.name = input.name;
	if (input.description !== undefined) assistant.description = input.description;
	await context.em.flush();
	return presentAssistant(assistant);
}
