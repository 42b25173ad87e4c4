import type { z } from "zod";
import { ZListAssistantVersionsInput } from "../../../contract/inputs/assistants";
import { AssistantVersionSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantVersionView, presentAssistantVersion } from "./present-assistant";

/** Newest first. */
export async function listAssistantVersions(context: UseCaseContext, rawInput: z.input<typeof ZListAssistantVersionsInput>): Promise<AssistantVersionView[]> {
	const input = parseInput(ZListAssistantVersionsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(context.em, workspaceId, input.slug);
	const versions = await context.em.find(AssistantVersionSchema, { assistant: assistant.id }, { orderBy: { version: "desc" }, limit: input.limit ?? 100 });
	return versions.map(presentAssistantVersion);
}
