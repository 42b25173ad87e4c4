import type { CommandSpec } from "./command-spec";
import { flag } from "./command-spec";

/** The MCP control plane's operator commands: connections, the organization's MCP administration switch, signing keys. */
export const OAUTH_COMMANDS: CommandSpec[] = [
	{
		path: "connection list",
		summary: "A user's MCP connections: client, organization, scopes, created, last used, revoked",
		useCase: "listConnections",
		flags: [flag("user", "string", "The user's id (admin member list)", { key: "userId", placeholder: "ID", required: true })],
		table: { list: "data", columns: ["id", "clientName", "organizationId", "scopes", "lastUsedAt", "revokedAt"], empty: "No connections." },
	},
	{
		path: "connection revoke",
		summary: "Revoke an MCP connection; its tokens stop on their next request",
		useCase: "revokeConnection",
		flags: [flag("id", "string", "The connection's id (admin connection list)", { placeholder: "ID", required: true })],
	},
	{
		path: "organization set",
		summary: "Turn administration over MCP off or on for an organization",
		details: "When disabled, every mcp:admin tool is refused for the organization, whatever the caller's role.",
		useCase: "setOrganizationMcpAdministration",
		flags: [
			flag("id", "string", "The organization's id (admin organization list)", { key: "organizationId", placeholder: "ID", required: true }),
			flag("mcp-admin", "string", "Administration over MCP", { key: "enabled", choices: ["disabled", "enabled"], required: true }),
		],
		assemble: (input) => ({ ...input, enabled: input.enabled === "enabled" }),
	},
	{
		path: "signing-key rotate",
		summary: "A new access-token signing key, used by every instance from its next request",
		details: "The old key stays published and accepted until signing-key retire-old (docs/oauth.md#signing-keys).",
		useCase: "rotateSigningKey",
		flags: [],
	},
	{
		path: "signing-key retire-old",
		summary: "Stop publishing and accepting every signing key but the newest, on every instance at once",
		details: "Run it once the longest access-token lifetime has passed since the last rotation.",
		useCase: "retireOldSigningKeys",
		flags: [],
	},
];
