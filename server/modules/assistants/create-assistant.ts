import type { z } from "zod";
import { ZCreateAssistantInput } from "../../../contract/inputs/assistants";
import { AssistantDraftSchema, AssistantSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseInput } from "../../shared/parse-input";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ASSISTANT_CONFIG } from "./assistant-config";

/** A new assistant with an empty draft: edit the draft, freeze it as a version, deploy the version. */
export async function createAssistant(
	context: UseCaseContext,
	rawInput: z.input<typeof ZCreateAssistantInput>,
): Promise<{ id: string; slug: string; name: string }> {
	const { em } = context;
	const input = parseInput(ZCreateAssistantInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const { name } = input;
	if (await em.findOne(AssistantSchema, { workspace: workspaceId, slug: input.slug })) {
		throw AppError.validation([{ field: "slug", issue: `An assistant '${input.slug}' already exists in this workspace` }]);
	}
	const id = newId("asst");
	em.create(AssistantSchema, { id, workspace: workspaceId, slug: input.slug, name, description: input.description ?? null, archivedAt: null });
	em.create(AssistantDraftSchema, { id: newId("draft"), assistant: id, config: DEFAULT_ASSISTANT_CONFIG, updatedByUser: actingUserId(context) });
	await em.flush();
	return { id, slug: input.slug, name };
}
