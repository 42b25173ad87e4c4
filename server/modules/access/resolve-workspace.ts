import { MembershipSchema, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

/**
 * The workspace a use case acts on. An API key acts on its own workspace only (spec: no
 * organization or workspace id is ever sent, so a different one is NOT_FOUND); a user acts on the
 * workspaces of the organization their connection is bound to (any of their organizations for an
 * all-organizations connection) where they are a member; the operator on any workspace.
 * Out-of-reach workspaces are NOT_FOUND, never FORBIDDEN: ids must not leak across tenants.
 */
export async function resolveWorkspaceId(context: UseCaseContext, workspaceId?: string): Promise<string> {
	const { principal } = context;
	if (principal.kind === "api_key") {
		if (workspaceId !== undefined && workspaceId !== principal.workspaceId) throw AppError.notFound("Workspace");
		return principal.workspaceId;
	}
	if (workspaceId === undefined) throw AppError.validation([{ field: "workspaceId", issue: "Required: name the workspace to act on" }]);
	const workspace = await context.em.findOne(WorkspaceSchema, { id: workspaceId }, { fields: ["id", "organization"] });
	if (!workspace) throw AppError.notFound("Workspace");
	if (principal.kind === "user") {
		if (principal.organizationId !== null && principal.organizationId !== workspace.organization) throw AppError.notFound("Workspace");
		const membership = await context.em.findOne(MembershipSchema, { organization: workspace.organization, user: principal.userId }, { fields: ["id"] });
		if (!membership) throw AppError.notFound("Workspace");
	}
	return workspace.id;
}

/** The user a change is attributed to (drafts, versions, deployments), when a person made it. */
export function actingUserId(context: UseCaseContext): string | null {
	return context.principal.kind === "user" ? context.principal.userId : null;
}
