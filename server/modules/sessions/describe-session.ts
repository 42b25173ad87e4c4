import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";
import { csrfTokenFor } from "./csrf-token";
import type { LiveSession } from "./authenticate-session";

export interface SessionDescription {
	user: { id: string; email: string; name: string | null };
	organizations: {
		id: string;
		name: string;
		role: "owner" | "admin" | "member" | "viewer";
		mcpAdministration: "enabled" | "disabled";
		workspaces: { id: string; name: string }[];
	}[];
	csrfToken: string;
	expiresAt: string;
}

/** What the dashboard shows of the signed-in user: who, where they are a member and with which role, the CSRF token. */
export async function describeSession(context: UseCaseContext, session: LiveSession): Promise<SessionDescription> {
	const connection = context.em.getConnection();
	const [user] = (await connection.execute("select id, email, name from users where id = ?", [session.userId])) as { id: string; email: string; name: string | null }[];
	if (!user) throw new AppError("UNAUTHENTICATED", "Your session has ended; sign in again");
	const rows = (await connection.execute(
		`select o.id, o.name, m.role, o.mcp_admin_disabled, w.id as workspace_id, w.name as workspace_name
		 from memberships m join organizations o on o.id = m.organization_id left join workspaces w on w.organization_id = o.id
		 where m.user_id = ? order by o.name, o.id, w.created_at, w.id`,
		[session.userId],
	)) as { id: string; name: string; role: SessionDescription["organizations"][number]["role"]; mcp_admin_disabled: boolean; workspace_id: string | null; workspace_name: string | null }[];
	const organizations = new Map<string, SessionDescription["organizations"][number]>();
	for (const row of rows) {
		let organization = organizations.get(row.id);
		if (!organization) {
			organization = { id: row.id, name: row.name, role: row.role, mcpAdministration: row.mcp_admin_disabled ? "disabled" : "enabled", workspaces: [] };
			organizations.set(row.id, organization);
		}
		if (row.workspace_id) organization.workspaces.push({ id: row.workspace_id, name: row.workspace_name as string });
	}
	return {
		user,
		organizations: [...organizations.values()],
		csrfToken: csrfTokenFor(context.services.secrets, session.tokenHash),
		expiresAt: session.expiresAt.toISOString(),
	};
}
