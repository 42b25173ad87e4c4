import type { z } from "zod";
import { ZGetAssistantVersionInput } from "../../../contract/inputs/assistants";
import { type AssistantConfig, AssistantVersionSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantVersionView, presentAssistantVersion } from "./present-assistant";

export async function getAssistantVersion(
	context: UseCaseContext,
	rawInput: z.input<typeof ZGetAssistantVersionInput>,
): Promise<AssistantVersionView & { config: AssistantConfig }> {
	const input = parseInput(ZGetAssistantVersionInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	const version = await context.em.findOne(AssistantVersionSchema, { assistant: assistant.id, version: input.version });
	if (!version) throw AppError.notFound(`Version ${input.version} of assistant '${input.slug}'`);
	return { ...presentAssistantVersion(version), config: version.config };
}
