import { SCOPES } from "../common";
import { z } from "../zod";
import { workspaceId } from "./fields";

/** The inputs of server/modules/api-keys: the MCP tools, the operator CLI and the dashboard's routes all take these. */
export const ZListApiKeysInput = z
	.object({
		workspaceId,
		includeRevoked: z.boolean().optional().describe("Also list revoked keys (default false)"),
	})
	.strict();

export const ZCreateApiKeyInput = z
	.object({
		workspaceId,
		name: z.string().trim().min(1, "Required").max(200).describe("What the key is for"),
		scopes: z.array(z.enum(SCOPES)).min(1, "Choose at least one scope").optional().describe("Default ['runtime:execute']; knowledge:read and knowledge:write are opt-in"),
	})
	.strict();

export const ZRevokeApiKeyInput = z
	.object({
		workspaceId,
		apiKeyId: z.string().min(1).max(100).describe("The key's id (list_api_keys)"),
	})
	.strict();

export type ListApiKeysInput = z.input<typeof ZListApiKeysInput>;
export type CreateApiKeyInput = z.input<typeof ZCreateApiKeyInput>;
export type RevokeApiKeyInput = z.input<typeof ZRevokeApiKeyInput>;
