import { type MemberRole, MembershipSchema, OrganizationSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

export interface OrganizationView {
	id: string;
	name: string;
	/** The caller's role there (null for the operator). */
	role: MemberRole | null;
	mcpAdministrationDisabled: boolean;
}

/** The organizations the caller can act on: a bound connection sees its one organization, an all-organizations connection every membership. */
export async function listOrganizations(context: UseCaseContext): Promise<OrganizationView[]> {
	const { principal, em } = context;
	if (principal.kind === "api_key") throw new AppError("FORBIDDEN", "API keys act on their workspace only, never on an organization");
	if (principal.kind === "operator") {
		const organizations = await em.find(OrganizationSchema, {}, { orderBy: { name: "asc" } });
		return organizations.map((organization) => ({ id: organization.id, name: organization.name, role: null, mcpAdministrationDisabled: organization.mcpAdminDisabled }));
	}
	// A person in the dashboard, or a connection opted in to all organizations: every membership.
	const boundTo = principal.kind === "user" ? principal.organizationId : null;
	const memberships = await em.find(MembershipSchema, boundTo === null ? { user: principal.userId } : { user: principal.userId, organization: boundTo });
	const organizations = await em.find(OrganizationSchema, { id: { $in: memberships.map((membership) => membership.organization) } }, { orderBy: { name: "asc" } });
	const roles = new Map(memberships.map((membership) => [membership.organization, membership.role]));
	return organizations.map((organization) => ({
		id: organization.id,
		name: organization.name,
		role: roles.get(organization.id) ?? null,
		mcpAdministrationDisabled: organization.mcpAdminDisabled,
	}));
}
