import { ApiKeySchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { API_KEY_REVOKED_CHANNEL } from "./api-key-cache";

/**
 * Revocation is a timestamp, not a delete, so traces and audit keep naming the key. It returns
 * once every server process has dropped the key from its cache (spec: revocation takes effect
 * immediately), since the runtime's hot path no longer reads the key per request. The operator
 * may name any key; anyone else only a key of a workspace they can act on.
 */
export async function revokeApiKey(context: UseCaseContext, input: { id: string; workspaceId?: string }): Promise<{ id: string; revokedAt: Date }> {
	const { em } = context;
	const workspaceId = context.principal.kind === "operator" && input.workspaceId === undefined ? undefined : await authorizeWorkspace(context, "administration:write", input.workspaceId);
	const apiKey = await em.findOne(ApiKeySchema, workspaceId ? { id: input.id, workspace: workspaceId } : { id: input.id });
	if (!apiKey) throw AppError.notFound("API key");
	if (!apiKey.revokedAt) {
		apiKey.revokedAt = new Date();
		await em.flush();
	}
	await context.services.notifications.publish(API_KEY_REVOKED_CHANNEL, apiKey.id);
	return { id: apiKey.id, revokedAt: apiKey.revokedAt };
}
