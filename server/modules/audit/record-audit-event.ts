import { isStorableText } from "../../../contract/schemas/common";
import { newId } from "../../shared/ids";
import { describePrincipal } from "../../shared/principal";
import { storableCopy, toStorableText } from "../../shared/storable-text";
import type { UseCaseContext } from "../platform-services";

/**
 * Appends one row to the audit log: who (the principal), what (the action, e.g. an operationId or
 * a tool name), where (workspace and its organization, when known), how it ended, and details
 * (ids, never secrets). The table is append-only: nothing updates or deletes its rows.
 *
 * Left out (undefined), the workspace is an API key's own and the organization a connection's
 * binding or the workspace's; null says there is none. The action and details are recorded as
 * PostgreSQL can store them (toStorableText): a record of a refused request holds what it refused.
 */
export async function recordAuditEvent(
	context: UseCaseContext,
	input: { action: string; outcome: "success" | "failure" | "denied"; workspaceId?: string | null; organizationId?: string | null; details: Record<string, unknown> },
): Promise<void> {
	const { principal } = context;
	const actor = describePrincipal(principal);
	const workspaceId = input.workspaceId !== undefined ? input.workspaceId : principal.kind === "api_key" ? principal.workspaceId : null;
	const organizationId = input.organizationId !== undefined ? input.organizationId : principal.kind === "user" ? principal.organizationId : null;
	// The organization of an API key's workspace is looked up in the same statement.
	await context.services.orm.em
		.fork()
		.getConnection()
		.execute(
			`insert into audit_events (id, organization, workspace, actor_type, actor_id, action, outcome, details, created_at)
			 values (?, coalesce(?, (select organization_id from workspaces where id = ?)), ?, ?, ?, ?, ?, ?::jsonb, now())`,
			[newId("audit"), organizationId, workspaceId, workspaceId, actor.type, actor.id, toStorableText(input.action), input.outcome, JSON.stringify(storableCopy(input.details))],
		);
}

/**
 * Where a call that named `workspaceId` or `organizationId` happened, for its audit row: the
 * workspace and its organization when the caller reaches it (as authorizeWorkspace finds it: the
 * connection's organization, or any of the user's for an all-organizations connection), the named
 * organization likewise, else the connection's own organization. What the caller cannot reach
 * is null, as is an id that was not text: a caller's argument never files a row in another
 * tenant's log.
 */
export async function resolveAuditScope(
	context: UseCaseContext,
	named: { workspaceId?: unknown; organizationId?: unknown },
): Promise<{ workspaceId: string | null; organizationId: string | null }> {
	const { principal } = context;
	if (principal.kind !== "user" && principal.kind !== "session") return { workspaceId: null, organizationId: null };
	// A dashboard session reaches every organization of its person; a connection may be bound to one.
	const boundTo = principal.kind === "user" ? principal.organizationId : null;
	// An id PostgreSQL cannot even compare (a NUL in it) names nothing.
	const usable = (id: unknown): id is string => typeof id === "string" && isStorableText(id);
	const connection = context.services.orm.em.fork().getConnection();
	if (named.workspaceId !== undefined) {
		if (!usable(named.workspaceId)) return { workspaceId: null, organizationId: null };
		const [row] = (await connection.execute(
			`select w.id, w.organization_id from workspaces w
			 join memberships m on m.organization_id = w.organization_id and m.user_id = ?
			 where w.id = ? and (?::text is null or w.organization_id = ?)`,
			[principal.userId, named.workspaceId, boundTo, boundTo],
		)) as { id: string; organization_id: string }[];
		return { workspaceId: row?.id ?? null, organizationId: row?.organization_id ?? null };
	}
	if (named.organizationId !== undefined) {
		if (!usable(named.organizationId)) return { workspaceId: null, organizationId: null };
		const [row] = (await connection.execute(
			`select m.organization_id from memberships m where m.user_id = ? and m.organization_id = ? and (?::text is null or m.organization_id = ?)`,
			[principal.userId, named.organizationId, boundTo, boundTo],
		)) as { organization_id: string }[];
		return { workspaceId: null, organizationId: row?.organization_id ?? null };
	}
	return { workspaceId: null, organizationId: boundTo };
}
