import { newId } from "../../shared/ids";
import { describePrincipal } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";

/**
 * Appends one row to the audit log: who (the principal), what (the action, e.g. an operationId or
 * a tool name), where (workspace and its organization, when known), how it ended, and details
 * (ids, never secrets). The table is append-only: nothing updates or deletes its rows.
 */
export async function recordAuditEvent(
	context: UseCaseContext,
	input: { action: string; outcome: "success" | "failure" | "denied"; workspaceId?: string | null; organizationId?: string | null; details: Record<string, unknown> },
): Promise<void> {
	const { principal } = context;
	const actor = describePrincipal(principal);
	const workspaceId = input.workspaceId ?? (principal.kind === "api_key" ? principal.workspaceId : null);
	const organizationId = input.organizationId ?? (principal.kind === "user" ? principal.organizationId : null);
	// The organization of an API key's workspace is looked up in the same statement.
	await context.services.orm.em
		.fork()
		.getConnection()
		.execute(
			`insert into audit_events (id, organization, workspace, actor_type, actor_id, action, outcome, details, created_at)
			 values (?, coalesce(?, (select organization_id from workspaces where id = ?)), ?, ?, ?, ?, ?, ?::jsonb, now())`,
			[newId("audit"), organizationId, workspaceId, workspaceId, actor.type, actor.id, input.action, input.outcome, JSON.stringify(input.details)],
		);
}
