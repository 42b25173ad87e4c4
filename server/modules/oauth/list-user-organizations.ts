import type { MemberRole } from "../../db/entities";
import type { UseCaseContext } from "../platform-services";

export interface UserOrganization {
	id: string;
	name: string;
	role: MemberRole;
	mcpAdminDisabled: boolean;
}

/** The organizations a user belongs to, with their role: what the consent screen offers to bind a connection to. */
export async function listUserOrganizations(context: UseCaseContext, input: { userId: string }): Promise<UserOrganization[]> {
	const rows = (await context.em.getConnection().execute(
		`select o.id, o.name, m.role, o.mcp_admin_disabled from memberships m join organizations o on o.id = m.organization_id
		 where m.user_id = ? order by o.name, o.id`,
		[input.userId],
	)) as { id: string; name: string; role: MemberRole; mcp_admin_disabled: boolean }[];
	return rows.map((row) => ({ id: row.id, name: row.name, role: row.role, mcpAdminDisabled: row.mcp_admin_disabled }));
}
