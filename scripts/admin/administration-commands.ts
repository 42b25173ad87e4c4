/**
 * Installation, organizations, workspaces, members, API keys and provider credentials: the
 * identity and mcp:admin tools, plus the operator-only bootstrap and user creation.
 */
import { API_KEY_SCOPE_CHOICES, type CommandSpec, flag, MEMBER_ROLE_CHOICES, organizationFlag, PROVIDER_CHOICES, workspaceFlag } from "./command-spec";

const userFlag = flag("user", "string", "The member's user id (admin member list)", { key: "userId", placeholder: "ID", required: true });
const providerFlag = flag("provider", "string", "Model provider", { choices: PROVIDER_CHOICES, required: true });

export const ADMINISTRATION_COMMANDS: CommandSpec[] = [
	{
		path: "bootstrap",
		summary: "First organization, workspace, owner and API key of a fresh installation",
		details:
			"Creates an organization with an owner user (scrypt-hashed password), a workspace with a production environment, and an API key with all three scopes. The key is printed this once.",
		useCase: "bootstrapInstallation",
		flags: [
			flag("organization", "string", "Organization name", { placeholder: "NAME", required: true }),
			flag("workspace", "string", "Workspace name", { placeholder: "NAME", required: true }),
			flag("email", "string", "The owner's email address", { placeholder: "EMAIL", required: true }),
			flag("password", "string", "The owner's password ('-' reads it from standard input)", { placeholder: "PASSWORD", required: true, readsStdin: true }),
		],
		notice: "The API key is shown this once: store it now.",
	},
	{
		path: "organization list",
		summary: "Every organization of the installation",
		tool: "list_organizations",
		flags: [],
		table: { list: "organizations", columns: ["id", "name", "mcpAdministrationDisabled"], empty: "No organizations yet: run admin bootstrap." },
	},
	{
		path: "workspace list",
		summary: "An organization's workspaces",
		tool: "list_workspaces",
		flags: [organizationFlag],
		table: { list: "workspaces", columns: ["id", "name", "createdAt"], empty: "No workspaces." },
	},
	{
		path: "member list",
		summary: "An organization's members and their roles",
		tool: "list_members",
		flags: [organizationFlag],
		table: { list: "members", columns: ["userId", "email", "name", "role", "joinedAt"], empty: "No members." },
	},
	{
		path: "member set-role",
		summary: "Change a member's role",
		details: "The last owner cannot be demoted.",
		tool: "update_member_role",
		flags: [organizationFlag, userFlag, flag("role", "string", "The new role", { choices: MEMBER_ROLE_CHOICES, required: true })],
	},
	{
		path: "member remove",
		summary: "Remove a user from an organization (their account stays)",
		details: "The last owner cannot be removed.",
		tool: "remove_member",
		flags: [organizationFlag, userFlag],
	},
	{
		path: "invitation list",
		summary: "An organization's invitations not yet used or revoked (pending, or expired in the last 30 days)",
		tool: "list_invitations",
		flags: [organizationFlag],
		table: { list: "invitations", columns: ["id", "email", "role", "status", "expiresAt", "invitedByEmail"], empty: "No pending invitations." },
	},
	{
		path: "invitation create",
		summary: "A single-use link, valid for 7 days, for someone to join an organization with a role",
		details:
			"The person opens the link to set their password (or signs in, with an account already). No email is sent: hand the link on. The link is built on PUBLIC_BASE_URL. A pending invitation for the same email is replaced.",
		tool: "create_invitation",
		flags: [
			organizationFlag,
			flag("email", "string", "The invited person's email address", { placeholder: "EMAIL", required: true }),
			flag("role", "string", "The role they join with", { choices: MEMBER_ROLE_CHOICES, required: true }),
		],
		notice: "The invitation link is shown this once: hand it to the person now.",
	},
	{
		path: "invitation revoke",
		summary: "Withdraw an invitation; its link stops working",
		tool: "revoke_invitation",
		flags: [organizationFlag, flag("id", "string", "The invitation's id (admin invitation list)", { key: "invitationId", placeholder: "ID", required: true })],
	},
	{
		path: "user create",
		summary: "A new user, member of an organization with a role",
		useCase: "createUser",
		flags: [
			flag("email", "string", "Email address (the sign-in name)", { placeholder: "EMAIL", required: true }),
			flag("password", "string", "Password ('-' reads it from standard input)", { placeholder: "PASSWORD", required: true, readsStdin: true }),
			flag("organization", "string", "The organization to join", { key: "organizationId", placeholder: "ID", required: true }),
			flag("role", "string", "Role in the organization", { choices: MEMBER_ROLE_CHOICES, required: true }),
		],
	},
	{
		path: "api-key list",
		summary: "A workspace's API keys (never their secrets)",
		tool: "list_api_keys",
		flags: [workspaceFlag, flag("include-revoked", "boolean", "Also list revoked keys")],
		table: { list: "apiKeys", columns: ["id", "name", "keyPrefix", "scopes", "lastUsedAt", "revokedAt", "createdAt"], empty: "No API keys." },
	},
	{
		path: "api-key create",
		summary: "A new API key for the runtime and knowledge APIs",
		details: "The secret is printed this once. knowledge:read and knowledge:write are opt-in scopes.",
		tool: "create_api_key",
		flags: [
			workspaceFlag,
			flag("name", "string", "What the key is for", { placeholder: "NAME", default: "API key" }),
			flag("scopes", "list", "Scopes, comma-separated", { choices: API_KEY_SCOPE_CHOICES, placeholder: "SCOPE,…", default: "runtime:execute" }),
		],
		notice: "The key is shown this once: store it now.",
	},
	{
		path: "api-key revoke",
		summary: "Revoke an API key, effective on its very next request",
		tool: "revoke_api_key",
		flags: [flag("id", "string", "The key's id (admin api-key list)", { key: "apiKeyId", placeholder: "ID", required: true }), { ...workspaceFlag, required: false }],
		operatorOptional: ["workspaceId"],
	},
	{
		path: "provider-credential list",
		summary: "A workspace's model-provider credentials (last four characters only)",
		tool: "list_provider_credentials",
		flags: [workspaceFlag],
		table: { list: "credentials", columns: ["provider", "apiKeyHint", "baseUrl", "updatedAt", "id"], empty: "No provider credentials." },
	},
	{
		path: "provider-credential set",
		summary: "Store or replace a provider's API key, encrypted",
		details: "Used by the very next generation; the key is never printed. --base-url works for every provider (self-hosted or proxied endpoints).",
		tool: "set_provider_credential",
		flags: [
			workspaceFlag,
			providerFlag,
			flag("api-key", "string", "The provider's API key ('-' reads it from standard input)", { placeholder: "KEY", required: true, readsStdin: true }),
			flag("base-url", "string", "API base URL; required for openai-compatible", { placeholder: "URL" }),
		],
	},
	{
		path: "provider-credential test",
		summary: "Check that the provider accepts the stored key (one free call: its models list)",
		details: "Goes through the egress policy like generations; a base URL it refuses is reported with the reason. Never prints the key.",
		tool: "test_provider_credential",
		flags: [workspaceFlag, providerFlag],
	},
	{
		path: "provider-credential delete",
		summary: "Delete a provider's credential; its generations are refused from the next call",
		tool: "delete_provider_credential",
		flags: [workspaceFlag, providerFlag],
	},
	{
		path: "secret list",
		summary: "A workspace's secrets for assistant tools, by name (never a value)",
		tool: "list_secrets",
		flags: [workspaceFlag],
		table: { list: "secrets", columns: ["name", "updatedAt"], empty: "No secrets." },
	},
	{
		path: "secret set",
		summary: "Store or replace a secret for assistant tools' headers ({{secret:NAME}}), encrypted",
		details: "The value is never printed, never sent to a model and never traced.",
		tool: "set_secret",
		flags: [
			workspaceFlag,
			flag("name", "string", "The secret's name", { placeholder: "NAME", required: true }),
			flag("value", "string", "The secret value ('-' reads it from standard input)", { placeholder: "VALUE", required: true, readsStdin: true }),
		],
	},
	{
		path: "secret delete",
		summary: "Delete a secret; tools referencing it get an error result from their next call",
		tool: "delete_secret",
		flags: [workspaceFlag, flag("name", "string", "The secret's name", { placeholder: "NAME", required: true })],
	},
];
