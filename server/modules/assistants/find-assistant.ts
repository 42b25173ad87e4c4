import type { EntityManager } from "@mikro-orm/postgresql";
import { type Assistant, AssistantSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";

export async function findAssistant(em: EntityManager, workspaceId: string, slug: string): Promise<Assistant> {
	const assistant = await em.findOne(AssistantSchema, { workspace: workspaceId, slug });
	if (!assistant) throw new AppError("ASSISTANT_NOT_FOUND", `No assistant '${slug}' in this workspace`);
	return assistant;
}
