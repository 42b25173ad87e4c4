import type { z } from "zod";
import { ZArchiveAssistantInput, ZRestoreAssistantInput } from "../../../contract/inputs/assistants";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { DEPLOYMENT_CHANNEL } from "./deployment-cache";
import { findAssistant } from "./find-assistant";
import { type AssistantView, presentAssistant } from "./present-assistant";

/**
 * Archiving stops the runtime serving the assistant (DEPLOYMENT_NOT_FOUND) while keeping its
 * versions and deployments, so restoring serves exactly what was deployed before. Returns once
 * every instance has dropped its cached resolution.
 */
async function setAssistantArchived(context: UseCaseContext, input: { workspaceId: string; slug: string }, archived: boolean): Promise<AssistantView> {
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	if ((assistant.archivedAt !== null) !== archived) {
		assistant.archivedAt = archived ? new Date() : null;
		await context.em.flush();
	}
	await context.services.notifications.publish(DEPLOYMENT_CHANNEL, workspaceId);
	return presentAssistant(assistant);
}

export function archiveAssistant(context: UseCaseContext, input: z.input<typeof ZArchiveAssistantInput>): Promise<AssistantView> {
	return setAssistantArchived(context, parseInput(ZArchiveAssistantInput, input), true);
}

export function restoreAssistant(context: UseCaseContext, input: z.input<typeof ZRestoreAssistantInput>): Promise<AssistantView> {
	return setAssistantArchived(context, parseInput(ZRestoreAssistantInput, input), false);
}
