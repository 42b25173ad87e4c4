import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantView, presentAssistant } from "./present-assistant";

/** Name and description; the slug is how callers reach the assistant, so it never changes. */
export async function updateAssistant(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; name?: string; description?: string | null },
): Promise<AssistantView> {
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	if (input.name !== undefined) {
		const name = input.name.trim();
		if (!name) throw AppError.validation([{ field: "name", issue: "Must not be empty" }]);
		assistant.name = name;
	}
	if (input.description !== undefined) assistant.description = input.description;
	await context.em.flush();
	return presentAssistant(assistant);
}
