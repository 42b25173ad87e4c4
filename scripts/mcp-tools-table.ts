/**
 * The README's MCP tools table and role matrix, rendered from the tool registry and the permission
 * table (server/mcp/tool-registry.ts, server/modules/access/permissions.ts), between markers;
 * scripts/generate.ts writes it and `--check` fails when the README is stale.
 */
import { MCP_TOOLS } from "../server/mcp/tool-registry";
import { PERMISSIONS, type Permission, rolesWith } from "../server/modules/access/permissions";

export const MCP_TOOLS_START = "<!-- generated:mcp-tools (scripts/generate.ts) -->";
export const MCP_TOOLS_END = "<!-- /generated:mcp-tools -->";

const ROLES = ["owner", "admin", "member", "viewer"] as const;

function escapeCell(text: string): string {
	return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function requirement(permission: Permission | null): { scope: string; role: string } {
	if (permission === null) return { scope: "any", role: "any member" };
	const rule = PERMISSIONS[permission];
	return { scope: `\`${rule.mcpScope}\``, role: `${rule.minimumRole}+${rule.administration ? " (off when MCP administration is disabled)" : ""}` };
}

export function renderMcpToolsSection(): string {
	const lines = [MCP_TOOLS_START, "", "Roles: what each permission needs, and who holds it (a tool also needs the token scope).", ""];
	lines.push(`| Permission | Scope | ${ROLES.join(" | ")} |`, `|---|---|${ROLES.map(() => "---").join("|")}|`);
	for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
		const holders = new Set(rolesWith(permission));
		lines.push(`| \`${permission}\` | \`${PERMISSIONS[permission].mcpScope}\` | ${ROLES.map((role) => (holders.has(role) ? "yes" : "no")).join(" | ")} |`);
	}
	lines.push("", `Tools (${MCP_TOOLS.length}):`, "", "| Tool | Scope | Role | Destructive | What it does |", "|---|---|---|---|---|");
	for (const tool of MCP_TOOLS) {
		const { scope, role } = requirement(tool.permission);
		const destructive = tool.annotations.destructiveHint ? "yes" : tool.annotations.readOnlyHint ? "read-only" : "no";
		lines.push(`| \`${tool.name}\` | ${scope} | ${role} | ${destructive} | ${escapeCell(tool.description)} |`);
	}
	lines.push("", MCP_TOOLS_END);
	return lines.join("\n");
}

/** The README with its generated section replaced; throws when the markers are missing. */
export function withMcpToolsSection(readme: string): string {
	const start = readme.indexOf(MCP_TOOLS_START);
	const end = readme.indexOf(MCP_TOOLS_END);
	if (start < 0 || end < start) throw new Error(`README.md lacks the ${MCP_TOOLS_START} … ${MCP_TOOLS_END} markers`);
	return readme.slice(0, start) + renderMcpToolsSection() + readme.slice(end + MCP_TOOLS_END.length);
}
