import type { MemberRole } from "../../db/entities";
import { MCP_SCOPES, type McpScope } from "../../shared/principal";
import { type Permission, rolesWith } from "../access/permissions";

/** The least permission each scope exists for: a role that cannot hold it is never offered the scope. */
const SCOPE_PERMISSION: Record<McpScope, Permission> = {
	"mcp:read": "assistants:read",
	"mcp:write": "assistants:write",
	"mcp:admin": "administration:read",
};

/** The scopes a role could use (consent screen: `mcp:write` and `mcp:admin` are only offered to roles that can act on them). */
export function scopesForRole(role: MemberRole): McpScope[] {
	return MCP_SCOPES.filter((scope) => rolesWith(SCOPE_PERMISSION[scope]).includes(role));
}

export function isMcpScope(value: string): value is McpScope {
	return (MCP_SCOPES as readonly string[]).includes(value);
}
