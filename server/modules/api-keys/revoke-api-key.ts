import { type RevokeApiKeyInput, ZRevokeApiKeyInput } from "../../../contract/inputs/api-keys";
import { ApiKeySchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { API_KEY_REVOKED_CHANNEL } from "./api-key-cache";

/**
 * Revocation is a timestamp, not a delete, so traces and audit keep naming the key. It returns
 * once every server process has dropped the key from its cache (spec: revocation takes effect
 * immediately), since the runtime's hot path no longer reads the key per request. The operator
 * may name any key without its workspace; anyone else only a key of a workspace they can act on.
 */
export async function revokeApiKey(
	context: UseCaseContext,
	input: Omit<RevokeApiKeyInput, "workspaceId"> & { workspaceId?: string },
): Promise<{ id: string; revokedAt: Date }> {
	const { em } = context;
	const operator = context.principal.kind === "operator";
	const { apiKeyId, workspaceId: named } = parseUseCaseInput(operator ? ZRevokeApiKeyInput.partial({ workspaceId: true }) : ZRevokeApiKeyInput, input);
	const workspaceId = operator && named === undefined ? undefined : await authorizeWorkspace(context, "administration:write", named);
	const apiKey = await em.findOne(ApiKeySchema, workspaceId ? { id: apiKeyId, workspace: workspaceId } : { id: apiKeyId });
	if (!apiKey) throw AppError.notFound("API key");
	if (!apiKey.revokedAt) {
		apiKey.revokedAt = new Date();
		await em.flush();
	}
	await context.services.notifications.publish(API_KEY_REVOKED_CHANNEL, apiKey.id);
	return { id: apiKey.id, revokedAt: apiKey.revokedAt };
}
