import { z } from "zod";
import { ZCreateApiKeyInput, ZListApiKeysInput, ZRevokeApiKeyInput } from "../../../contract/inputs/api-keys";
import { ZCreateInvitationInput, ZListInvitationsInput, ZRevokeInvitationInput } from "../../../contract/inputs/invitations";
import { ZListMembersInput, ZRemoveMemberInput, ZUpdateMemberRoleInput } from "../../../contract/inputs/members";
import {
	ZDeleteProviderCredentialInput,
	ZListProviderCredentialsInput,
	ZSetProviderCredentialInput,
	ZTestProviderCredentialInput,
} from "../../../contract/inputs/provider-credentials";
import { createApiKey } from "../../modules/api-keys/create-api-key";
import { listApiKeys } from "../../modules/api-keys/list-api-keys";
import { revokeApiKey } from "../../modules/api-keys/revoke-api-key";
import { createInvitation } from "../../modules/invitations/create-invitation";
import { listInvitations } from "../../modules/invitations/list-invitations";
import { revokeInvitation } from "../../modules/invitations/revoke-invitation";
import { listMembers } from "../../modules/members/list-members";
import { removeMember } from "../../modules/members/remove-member";
import { updateMemberRole } from "../../modules/members/update-member-role";
import { ZDeleteSecretInput, ZListSecretsInput, ZSetSecretInput } from "../../../contract/inputs/workspace-secrets";
import { deleteSecret } from "../../modules/workspace-secrets/delete-secret";
import { listSecrets } from "../../modules/workspace-secrets/list-secrets";
import { setSecret } from "../../modules/workspace-secrets/set-secret";
import { deleteProviderCredential } from "../../modules/provider-credentials/delete-provider-credential";
import { listProviderCredentials } from "../../modules/provider-credentials/list-provider-credentials";
import { setProviderCredential } from "../../modules/provider-credentials/set-provider-credential";
import { testProviderCredential } from "../../modules/provider-credentials/test-provider-credential";
import { MEMBER_ROLES } from "../../db/entities";
import { DESTRUCTIVE, defineTool, type McpTool, READ_ONLY, WRITES } from "../tool-definition";
import { deleted, nullable, timestamp } from "./fields";

/** The arguments are the use cases' inputs (contract/inputs/), as the dashboard's routes and the operator CLI take them. */
const role = z.enum(MEMBER_ROLES);
const credential = z.object({
	id: z.string(),
	workspaceId: z.string(),
	provider: z.string(),
	apiKeyHint: z.string().describe("Last four characters of the stored key"),
	baseUrl: nullable(z.string()),
	updatedAt: timestamp(),
});
const invitation = {
	id: z.string().describe("The invitation's id"),
	organizationId: z.string(),
	email: z.string(),
	role: z.enum(MEMBER_ROLES),
	status: z.enum(["pending", "expired", "accepted", "revoked"]),
	invitedByUserId: nullable(z.string()),
	invitedByEmail: nullable(z.string()),
	expiresAt: timestamp(),
	createdAt: timestamp(),
};

export const ADMIN_TOOLS: McpTool[] = [
	defineTool({
		name: "list_members",
		title: "List members",
		description: "The organization's members with their roles (owner, admin, member, viewer).",
		inputSchema: ZListMembersInput.shape,
		outputSchema: { members: z.array(z.object({ userId: z.string(), email: z.string(), name: nullable(z.string()), role, joinedAt: timestamp() })) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ members: await listMembers(context, input) }),
	}),
	defineTool({
		name: "update_member_role",
		title: "Change a member's role",
		description: "Changes a member's role. Only owners grant or take away the owner role; the last owner cannot be demoted.",
		inputSchema: ZUpdateMemberRoleInput.shape,
		outputSchema: { userId: z.string(), role },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => updateMemberRole(context, input),
	}),
	defineTool({
		name: "remove_member",
		title: "Remove a member",
		description: "Removes a user from the organization (their account stays). The last owner cannot be removed; only owners remove owners.",
		inputSchema: ZRemoveMemberInput.shape,
		outputSchema: { userId: z.string(), removed: z.literal(true) },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => removeMember(context, input),
	}),
	defineTool({
		name: "list_api_keys",
		title: "List API keys",
		description: "The workspace's API keys: name, prefix, scopes, last use (never the secret).",
		inputSchema: ZListApiKeysInput.shape,
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
		inputSchema: ZCreateApiKeyInput.shape,
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
		inputSchema: ZRevokeApiKeyInput.shape,
		outputSchema: { id: z.string(), revokedAt: timestamp() },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: async (context, input) => {
			const revoked = await revokeApiKey(context, input);
			return { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() };
		},
	}),
	defineTool({
		name: "list_provider_credentials",
		title: "List provider credentials",
		description: "The workspace's model-provider credentials: provider, base URL and the key's last four characters only.",
		inputSchema: ZListProviderCredentialsInput.shape,
		outputSchema: { credentials: z.array(credential) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ credentials: await listProviderCredentials(context, input) }),
	}),
	defineTool({
		name: "set_provider_credential",
		title: "Set a provider credential",
		description: "Stores (or replaces) the workspace's API key for a model provider, encrypted; used by the very next generation. The key is never returned.",
		inputSchema: ZSetProviderCredentialInput.shape,
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
		inputSchema: ZDeleteProviderCredentialInput.shape,
		outputSchema: { provider: z.string(), ...deleted },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => deleteProviderCredential(context, input),
	}),
	defineTool({
		name: "list_secrets",
		title: "List workspace secrets",
		description: "Lists the workspace's secrets by name (referenced in assistant tools' headers as {{secret:NAME}}); never a value.",
		inputSchema: ZListSecretsInput.shape,
		outputSchema: { secrets: z.array(z.object({ name: z.string(), workspaceId: z.string(), updatedAt: timestamp() })) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ secrets: await listSecrets(context, input) }),
	}),
	defineTool({
		name: "set_secret",
		title: "Set a workspace secret",
		description:
			"Stores (or replaces) a workspace secret, encrypted, for assistants' http and mcp tools to send in headers as {{secret:NAME}}. Never returned, never sent to the model, never written to traces or logs.",
		inputSchema: ZSetSecretInput.shape,
		outputSchema: { name: z.string(), workspaceId: z.string(), updatedAt: timestamp() },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		secretArguments: ["value"],
		run: (context, input) => setSecret(context, input),
	}),
	defineTool({
		name: "delete_secret",
		title: "Delete a workspace secret",
		description: "Deletes a workspace secret; tools referencing it get an error result from their next call.",
		inputSchema: ZDeleteSecretInput.shape,
		outputSchema: { name: z.string(), ...deleted },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => deleteSecret(context, input),
	}),
	defineTool({
		name: "test_provider_credential",
		title: "Test a provider credential",
		description:
			"Checks whether the provider accepts the workspace's stored key, with one free call (the provider's models list) through the same egress policy as generations. Answers works true or false with the reason (the key refused, a base URL not allowed, no answer); never the key.",
		inputSchema: ZTestProviderCredentialInput.shape,
		outputSchema: {
			provider: z.string(),
			works: z.boolean().describe("Whether the provider accepted the stored key"),
			message: z.string().describe("What happened, or why it does not work"),
			modelCount: nullable(z.number()).describe("Models the provider lists (null when it did not say)"),
			models: z.array(z.string()).describe("The first few of them"),
			checkedAt: timestamp(),
		},
		// Reaches the provider (outside the platform) but changes nothing.
		annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
		permission: "administration:write",
		run: (context, input) => testProviderCredential(context, input),
	}),
	defineTool({
		name: "list_invitations",
		title: "List invitations",
		description: "The organization's invitations not yet used or revoked: pending ones and those that expired in the last 30 days (never their links).",
		inputSchema: ZListInvitationsInput.shape,
		outputSchema: { invitations: z.array(z.object(invitation)) },
		annotations: READ_ONLY,
		permission: "administration:read",
		run: async (context, input) => ({ invitations: await listInvitations(context, input) }),
	}),
	defineTool({
		name: "create_invitation",
		title: "Invite someone",
		description:
			"Creates a single-use invitation link, valid for 7 days, for a person to join the organization with a role: they open it to set their password (or sign in, if they have an account). No email is sent: hand the link in this answer to the person now, it is never shown again. Only owners invite owners; a pending invitation for the same email is replaced.",
		inputSchema: ZCreateInvitationInput.shape,
		outputSchema: { ...invitation, url: z.string().describe("The invitation link, shown once") },
		annotations: WRITES,
		permission: "administration:write",
		run: async (context, input) => {
			const { token: _token, ...created } = await createInvitation(context, input);
			return created;
		},
	}),
	defineTool({
		name: "revoke_invitation",
		title: "Revoke an invitation",
		description: "Withdraws an invitation: its link stops working (the page says it was withdrawn). One already accepted is a membership: remove the member instead.",
		inputSchema: ZRevokeInvitationInput.shape,
		outputSchema: { id: z.string(), revokedAt: timestamp() },
		annotations: DESTRUCTIVE,
		permission: "administration:write",
		run: (context, input) => revokeInvitation(context, input),
	}),
];
