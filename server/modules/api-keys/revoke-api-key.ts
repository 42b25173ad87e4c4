import type { EntityManager } from "@mikro-orm/postgresql";
import { ApiKeySchema } from "../../db/entities";
import { notifyAndAwaitListeners } from "../../db/notifications";
import { AppError } from "../../shared/app-error";
import { API_KEY_REVOKED_CHANNEL } from "./api-key-cache";

/**
 * Revocation is a timestamp, not a delete, so traces and audit keep naming the key. It returns
 * once every server process has dropped the key from its cache (spec: revocation takes effect
 * immediately), since the runtime's hot path no longer reads the key per request.
 */
export async function revokeApiKey(em: EntityManager, input: { id: string; workspaceId?: string }): Promise<{ id: string; revokedAt: Date }> {
	const apiKey = await em.findOne(ApiKeySchema, input.workspaceId ? { id: input.id, workspace: input.workspaceId } : { id: input.id });
	if (!apiKey) throw AppError.notFound("API key");
	if (!apiKey.revokedAt) {
		apiKey.revokedAt = new Date();
		await em.flush();
	}
	await notifyAndAwaitListeners(em.config.get("clientUrl") as string, API_KEY_REVOKED_CHANNEL, apiKey.id);
	return { id: apiKey.id, revokedAt: apiKey.revokedAt };
}
