import type { z } from "zod";
import { ZCreateAssistantVersionInput } from "../../../contract/inputs/assistants";
import { type AssistantConfig, AssistantDraftSchema, AssistantVersionSchema } from "../../db/entities";
import { newId } from "../../shared/ids";
import { parseInput } from "../../shared/parse-input";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseAssistantConfig } from "./assistant-config";
import { findAssistant } from "./find-assistant";

/** Freezes the draft as the next version number; versions are never changed afterwards. */
export async function createAssistantVersion(
	context: UseCaseContext,
	rawInput: z.input<typeof ZCreateAssistantVersionInput>,
): Promise<{ id: string; version: number; config: AssistantConfig }> {
	const input = parseInput(ZCreateAssistantVersionInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	return context.em.transactional(async (tx) => {
		const assistant = await findAssistant(tx, workspaceId, input.slug);
		const draft = await tx.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
		// Serialises concurrent version creation per assistant; the unique (assistant, version) is the backstop.
		await tx.getConnection().execute("select id from assistants where id = ? for update", [assistant.id], "all", tx.getTransactionContext());
		const rows: { max: number | null }[] = await tx
			.getConnection()
			.execute("select max(version) as max from assistant_versions where assistant_id = ?", [assistant.id], "all", tx.getTransactionContext());
		const version = (rows[0]?.max ?? 0) + 1;
		const id = newId("ver");
		const config = parseAssistantConfig(draft.config);
		tx.create(AssistantVersionSchema, { id, workspace: workspaceId, assistant: assistant.id, version, config, note: input.note ?? null, createdByUser: actingUserId(context) });
		return { id, version, config };
	});
}
