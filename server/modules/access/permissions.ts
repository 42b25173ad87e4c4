import type { Scope } from "../../../contract/common";
import type { MemberRole } from "../../db/entities";
import type { McpScope } from "../../shared/principal";

/**
 * What a caller may do, decided in one place for every transport. An API key needs the API scope
 * named here (none: keys cannot do it at all); a user acting through an OAuth connection needs both
 * the token scope and at least the role; the operator may do everything. `administration`
 * permissions are also refused to users when their organization switched off administration over
 * MCP (spec, MCP rule 5).
 */
export interface PermissionRule {
	apiScope: Scope | null;
	mcpScope: McpScope;
	minimumRole: MemberRole;
	administration: boolean;
}

export const PERMISSIONS = {
	"workspace:read": { apiScope: null, mcpScope: "mcp:read", minimumRole: "viewer", administration: false },
	"knowledge:read": { apiScope: "knowledge:read", mcpScope: "mcp:read", minimumRole: "viewer", administration: false },
	"knowledge:write": { apiScope: "knowledge:write", mcpScope: "mcp:write", minimumRole: "member", administration: false },
	"assistants:read": { apiScope: null, mcpScope: "mcp:read", minimumRole: "viewer", administration: false },
	"assistants:write": { apiScope: null, mcpScope: "mcp:write", minimumRole: "member", administration: false },
	/** Running generations costs money: deployed assistants, playground turns, evaluation runs. */
	"generations:run": { apiScope: "runtime:execute", mcpScope: "mcp:write", minimumRole: "member", administration: false },
	"traces:read": { apiScope: null, mcpScope: "mcp:read", minimumRole: "viewer", administration: false },
	"evaluations:read": { apiScope: null, mcpScope: "mcp:read", minimumRole: "viewer", administration: false },
	"evaluations:write": { apiScope: null, mcpScope: "mcp:write", minimumRole: "member", administration: false },
	/** Members, API keys, provider credentials. */
	"administration:read": { apiScope: null, mcpScope: "mcp:admin", minimumRole: "admin", administration: true },
	"administration:write": { apiScope: null, mcpScope: "mcp:admin", minimumRole: "admin", administration: true },
	/** Organization-wide settings (e.g. disabling administration over MCP). */
	"organization:settings": { apiScope: null, mcpScope: "mcp:admin", minimumRole: "owner", administration: true },
} as const satisfies Record<string, PermissionRule>;

export type Permission = keyof typeof PERMISSIONS;

const ROLE_RANK: Record<MemberRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleAllows(role: MemberRole, minimum: MemberRole): boolean {
	return ROLE_RANK[role] >= ROLE_RANK[minimum];
}

/** The roles that hold a permission, for documentation and for offering scopes on the consent screen. */
export function rolesWith(permission: Permission): MemberRole[] {
	return (Object.keys(ROLE_RANK) as MemberRole[]).filter((role) => roleAllows(role, PERMISSIONS[permission].minimumRole));
}
