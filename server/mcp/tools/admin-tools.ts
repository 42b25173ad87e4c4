import { z } from "zod";
import { SCOPES } from "../../../contract/common";
import { createApiKey } from "../../modules/api-keys/create-api-key";
import { listApiKeys } from "../../modules/api-keys/list-api-keys";
import { revokeApiKey } from "../../modules/api-keys/revoke-api-key";
import { listMembers } from "../../modules/members/list-members";
import { removeMember } from "../../modules/members/remove-member";
import { updateMemberRole } from "../../modules/members/update-member-role";
import { deleteProviderCredential } from "../../modules/provider-credentials/delete-provider-credential";
import { listProviderCredentials } from "../../modules/provider-credentials/list-provider-credentials";
import { setProviderCredential } from "../../modules/provider-credentials/set-provider-credential";
import { MEMBER_ROLES, PROVIDERS } from "../../db/entities";
import { DESTRUCTIVE, defineTool, type McpTool, READ_ONLY, WRITES } from "../tool-definition";
import { deleted, nullable, organizationId, timestamp, workspaceId } from "./fields";

const role = z.enum(MEMBER_ROLES);
const userId = z.string().min(1).max(100).describe("The member's user id (list_members)");
const provider = z.enum(PROVIDERS).describe("Model provider");
const credential = z.object({
	id: z.string(),
	workspaceId: z.string(),
	provider: z.string(),
	apiKeyHint: z.string().describe("Last four characters of the stored key"),
	baseUrl: nullable(z.string()),
	updatedAt: timestamp(),
});

export const ADMIN_TOOLS: McpTool[] = [
	defineTool({
		name: "list_members",
		title: "List members",
		description: "The organization's members with their roles (owner, admin, member, viewer).",
		inputSchema: { organizationId },
		outputSchema: { members: z.array(z.object({ userId: z.string(), email: z.string(), name: nullable(z.string()), role, joinedAt: timestamp() })) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ members: await listMembers(context, input) }),
	}),
	defineTool({
		name: "update_member_role",
		title: "Change a member's role",
		description: "Changes a member's role. Only owners grant or take away the owner role; the last owner cannot be demoted.",
		inputSchema: { organizationId, userId, role: role.describe("The new role") },
		outputSchema: { userId: z.string(), role },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => updateMemberRole(context, input),
	}),
	defineTool({
		name: "remove_member",
		title: "Remove a member",
		description: "Removes a user from the organization (their account stays). The last owner cannot be removed; only owners remove owners.",
		inputSchema: { organizationId, userId },
		outputSchema: { userId: z.string(), removed: z.literal(true) },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => removeMember(context, input),
	}),
	defineTool({
		name: "list_api_keys",
		title: "List API keys",
		description: "The workspace's API keys: name, prefix, scopes, last use (never the secret).",
		inputSchema: { workspaceId, includeRevoked: z.boolean().optional().describe("Also list revoked keys (default false)") },
		outputSchema: {
			apiKeys: z.array(
				z.object({
					id: z.string(),
					name: z.string(),
					keyPrefix: z.string(),
					scopes: z.array(z.string()),
					createdByUserId: nullable(z.string()),
					lastUsedAt: nullable(timestamp()),
					revokedAt: nullable(timestamp()),
					createdAt: timestamp(),
				}),
			),
		},
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ apiKeys: await listApiKeys(context, input) }),
	}),
	defineTool({
		name: "create_api_key",
		title: "Create an API key",
		description: "Creates a workspace API key for the runtime and knowledge APIs. The secret is in this answer only: hand it to the user now, it is never shown again.",
		inputSchema: {
			workspaceId,
			name: z.string().min(1).max(200).describe("What the key is for"),
			scopes: z.array(z.enum(SCOPES)).min(1).optional().describe("Default ['runtime:execute']; knowledge:read and knowledge:write are opt-in"),
		},
		outputSchema: {
			id: z.string(),
			key: z.string().describe("The whole secret, shown once"),
			keyPrefix: z.string(),
			name: z.string(),
			scopes: z.array(z.string()),
			workspaceId: z.string(),
		},
		annotations: WRITES,
		permission: "administration:write",
		run: (context, input) => createApiKey(context, input),
	}),
	defineTool({
		name: "revoke_api_key",
		title: "Revoke an API key",
		description: "Revokes an API key; its next request, on any server instance, fails with INVALID_CREDENTIALS.",
		inputSchema: { workspaceId, apiKeyId: z.string().min(1).max(100).describe("The key's id (list_api_keys)") },
		outputSchema: { id: z.string(), revokedAt: timestamp() },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: async (context, input) => {
			const revoked = await revokeApiKey(context, { workspaceId: input.workspaceId, id: input.apiKeyId });
			return { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() };
		},
	}),
	defineTool({
		name: "list_provider_credentials",
		title: "List provider credentials",
		description: "The workspace's model-provider credentials: provider, base URL and the key's last four characters only.",
		inputSchema: { workspaceId },
		outputSchema: { credentials: z.array(credential) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ credentials: await listProviderCredentials(context, input) }),
	}),
	defineTool({
		name: "set_provider_credential",
		title: "Set a provider credential",
		description: "Stores (or replaces) the workspace's API key for a model provider, encrypted; used by the very next generation. The key is never returned.",
		inputSchema: {
			workspaceId,
			provider,
			apiKey: z.string().min(1).max(1000).describe("The provider's API key"),
			// Checked by the use case ("Must be an http(s) URL"): a `format: uri` is refused by some clients' schema dialects.
			baseUrl: z.string().max(2000).optional().describe("API base URL, an http(s) URL such as https://api.example.com/v1; required for openai-compatible"),
		},
		outputSchema: credential.shape,
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		secretArguments: ["apiKey"],
		run: (context, input) => setProviderCredential(context, input),
	}),
	defineTool({
		name: "delete_provider_credential",
		title: "Delete a provider credential",
		description: "Deletes the workspace's credential for a provider; generations with that provider are refused from the next call.",
		inputSchema: { workspaceId, provider },
		outputSchema: { provider: z.string(), ...deleted },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => deleteProviderCredential(context, input),
	}),
];
