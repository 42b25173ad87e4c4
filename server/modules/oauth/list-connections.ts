import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

export interface ConnectionView {
	id: string;
	userId: string;
	clientId: string;
	clientName: string | null;
	/** Null: every organization of the user (explicit opt-in). */
	organizationId: string | null;
	organizationName: string | null;
	scopes: string[];
	createdAt: string;
	lastUsedAt: string | null;
	revokedAt: string | null;
	/** When it ends unless used (its grant's expiry, moved by every refresh); null once revoked or ended. */
	expiresAt: string | null;
}

/**
 * A user's connections, newest first: the operator may list anyone's; a signed-in user (the
 * connected-applications page passes its own id) only their own. Revoked and ended ones are
 * included, marked (revokedAt, or expiresAt null).
 */
export async function listConnections(context: UseCaseContext, input: { userId: string; signedInUserId?: string }): Promise<{ data: ConnectionView[] }> {
	const signedIn = context.principal.kind === "session" ? context.principal.userId : input.signedInUserId;
	if (context.principal.kind !== "operator" && signedIn !== input.userId) throw AppError.notFound("User");
	const rows = (await context.em.getConnection().execute(
		`select c.id, c.user_id, c.client_id, c.client_name, c.organization_id, o.name as organization_name, c.scopes, c.created_at, c.last_used_at, c.revoked_at,
		   case when c.revoked_at is null then g.expires_at end as expires_at
		 from oauth_connections c left join organizations o on o.id = c.organization_id
		   left join oauth_records g on g.id = c.grant_id and g.model = 'Grant' and g.expires_at > now()
		 where c.user_id = ? order by c.created_at desc, c.id desc`,
		[input.userId],
	)) as {
		id: string;
		user_id: string;
		client_id: string;
		client_name: string | null;
		organization_id: string | null;
		organization_name: string | null;
		scopes: string[];
		created_at: Date | string;
		last_used_at: Date | string | null;
		revoked_at: Date | string | null;
		expires_at: Date | string | null;
	}[];
	return {
		data: rows.map((row) => ({
			id: row.id,
			userId: row.user_id,
			clientId: row.client_id,
			clientName: row.client_name,
			organizationId: row.organization_id,
			organizationName: row.organization_name,
			scopes: row.scopes,
			createdAt: new Date(row.created_at).toISOString(),
			lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
			revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
			expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
		})),
	};
}
