import { MembershipSchema, type MemberRole, OrganizationSchema, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { UserPrincipal } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";
import { PERMISSIONS, type Permission, roleAllows } from "./permissions";

/**
 * The workspace a use case acts on, once the caller is allowed `permission` there (permissions.ts).
 * An API key acts on its own workspace only (spec: no organization or workspace id is ever sent,
 * so another id is NOT_FOUND) and needs the permission's API scope; a user acts on workspaces of
 * the organization their connection is bound to (any of theirs for an all-organizations
 * connection) where they are a member, with the token scope and the role the permission needs;
 * the operator on any workspace. Out-of-reach workspaces are NOT_FOUND, never FORBIDDEN: ids must
 * not leak across tenants; a reachable one the caller may not act on is FORBIDDEN, saying why.
 */
export async function authorizeWorkspace(context: UseCaseContext, permission: Permission, workspaceId?: string): Promise<string> {
	const { principal } = context;
	const rule = PERMISSIONS[permission];
	if (principal.kind === "api_key") {
		if (rule.apiScope === null) throw new AppError("FORBIDDEN", "API keys cannot do this; it is done by a member of the organization (MCP or the operator CLI)");
		if (!principal.scopes.has(rule.apiScope)) throw new AppError("FORBIDDEN", `This API key lacks the '${rule.apiScope}' scope`);
		if (workspaceId !== undefined && workspaceId !== principal.workspaceId) throw AppError.notFound("Workspace");
		return principal.workspaceId;
	}
	if (workspaceId === undefined) throw AppError.validation([{ field: "workspaceId", issue: "Required: name the workspace to act on" }]);
	const workspace = await context.em.findOne(WorkspaceSchema, { id: workspaceId }, { fields: ["id", "organization"] });
	if (!workspace) throw AppError.notFound("Workspace");
	if (principal.kind === "user") await authorizeUserInOrganization(context, principal, permission, workspace.organization, "Workspace");
	if (principal.kind === "session") await authorizeMemberInOrganization(context, principal.userId, permission, workspace.organization, "Workspace");
	return workspace.id;
}

/**
 * The organization an organization-wide use case acts on (members, settings), once the caller is
 * allowed `permission` there. A connection bound to one organization acts on it when none is
 * named; an all-organizations connection and the operator must name one. API keys never do.
 */
export async function authorizeOrganization(context: UseCaseContext, permission: Permission, organizationId?: string): Promise<{ organizationId: string; role: MemberRole | null }> {
	const { principal } = context;
	if (principal.kind === "api_key") throw new AppError("FORBIDDEN", "API keys act on their workspace only, never on an organization");
	const requested = organizationId ?? (principal.kind === "user" ? (principal.organizationId ?? undefined) : undefined);
	if (requested === undefined) throw AppError.validation([{ field: "organizationId", issue: "Required: name the organization to act on" }]);
	const organization = await context.em.findOne(OrganizationSchema, { id: requested }, { fields: ["id"] });
	if (!organization) throw AppError.notFound("Organization");
	if (principal.kind === "operator") return { organizationId: organization.id, role: null };
	if (principal.kind === "session") return { organizationId: organization.id, role: await authorizeMemberInOrganization(context, principal.userId, permission, organization.id, "Organization") };
	const role = await authorizeUserInOrganization(context, principal, permission, organization.id, "Organization");
	return { organizationId: organization.id, role };
}

/** Token scope, then reach (binding and membership: NOT_FOUND), then role and the organization's MCP administration switch (FORBIDDEN). */
async function authorizeUserInOrganization(
	context: UseCaseContext,
	principal: UserPrincipal,
	permission: Permission,
	organizationId: string,
	what: "Workspace" | "Organization",
): Promise<MemberRole> {
	const rule = PERMISSIONS[permission];
	if (!principal.scopes.has(rule.mcpScope)) {
		throw new AppError("FORBIDDEN", `This connection was not granted '${rule.mcpScope}'; reconnect the application and approve that scope`);
	}
	if (principal.organizationId !== null && principal.organizationId !== organizationId) throw AppError.notFound(what);
	const membership = await context.em.findOne(MembershipSchema, { organization: organizationId, user: principal.userId }, { fields: ["role"] });
	if (!membership) throw AppError.notFound(what);
	if (!roleAllows(membership.role, rule.minimumRole)) {
		throw new AppError("FORBIDDEN", `Your role in this organization (${membership.role}) cannot do this; it needs ${rule.minimumRole} or above`);
	}
	if (rule.administration) {
		const organization = await context.em.findOne(OrganizationSchema, { id: organizationId }, { fields: ["mcpAdminDisabled"] });
		if (organization?.mcpAdminDisabled) throw new AppError("FORBIDDEN", "An owner of this organization has disabled administration over MCP");
	}
	return membership.role;
}

/**
 * A person signed in to the dashboard: membership (else NOT_FOUND, ids never leak across tenants),
 * then the role the permission needs (else FORBIDDEN, saying why). Checked on every call, so a
 * member removed or demoted is refused on their next request.
 */
async function authorizeMemberInOrganization(context: UseCaseContext, userId: string, permission: Permission, organizationId: string, what: "Workspace" | "Organization"): Promise<MemberRole> {
	const membership = await context.em.findOne(MembershipSchema, { organization: organizationId, user: userId }, { fields: ["role"] });
	if (!membership) throw AppError.notFound(what);
	const needed = PERMISSIONS[permission].minimumRole;
	if (!roleAllows(membership.role, needed)) throw new AppError("FORBIDDEN", `Your role in this organization (${membership.role}) cannot do this; it needs ${needed} or above`);
	return membership.role;
}

/** The user a change is attributed to (drafts, versions, deployments, keys), when a person made it. */
export function actingUserId(context: UseCaseContext): string | null {
	const { principal } = context;
	return principal.kind === "user" || principal.kind === "session" ? principal.userId : null;
}
