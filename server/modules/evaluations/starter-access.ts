import { MembershipSchema, type StoredPrincipal, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { OPERATOR, type McpScope, type Principal } from "../../shared/principal";
import { authorizeWorkspace } from "../access/authorize";
import { PERMISSIONS, roleAllows } from "../access/permissions";
import { resolveLiveConnection } from "../oauth/resolve-connection";
import { createUseCaseContext, type PlatformServices } from "../platform-services";
import { restorePrincipal } from "./stored-principal";

/** What starting a run needs; a run keeps going only while its starter still has it. */
const START_PERMISSION = "evaluations:write";

/**
 * Why the caller who started a run may no longer run it, or null while they may. A run spends
 * its starter's money under their name, so it is held to what starting it needs, checked again
 * before every case: the OAuth connection (or API key) it was started with must not be revoked,
 * and the starter must still reach the workspace with the scope and role `evaluations:write`
 * needs. The message says what changed, for the run's failure reason.
 */
export async function starterAccessLost(services: PlatformServices, workspaceId: string, starter: StoredPrincipal): Promise<string | null> {
	const check = createUseCaseContext(services, OPERATOR);
	let principal: Principal;
	switch (starter.kind) {
		case "operator":
			return null;
		case "api_key": {
			const [key] = (await check.em.getConnection().execute("select revoked_at from api_keys where id = ? and workspace_id = ?", [starter.apiKeyId, workspaceId])) as { revoked_at: Date | null }[];
			if (!key || key.revoked_at !== null) return "The API key that started this run was revoked";
			principal = restorePrincipal(starter);
			break;
		}
		case "user": {
			const connection = await resolveLiveConnection(check, { connectionId: starter.connectionId, userId: starter.userId, clientId: starter.clientId });
			if (!connection) return "The connection this run was started with was revoked";
			// As the MCP endpoint does on every call: the scopes the token had, as far as the connection still grants them.
			const granted = new Set(connection.scopes);
			const scopes = new Set(starter.scopes.filter((scope) => granted.has(scope)) as McpScope[]);
			principal = { kind: "user", userId: starter.userId, clientId: starter.clientId, connectionId: starter.connectionId, organizationId: connection.organizationId, scopes };
			break;
		}
		case "session":
			// Started from the dashboard: the run is the person's, whether or not they stay signed in; their membership and role decide.
			principal = restorePrincipal(starter);
			break;
	}
	try {
		await authorizeWorkspace(createUseCaseContext(services, principal), START_PERMISSION, workspaceId);
		return null;
	} catch (error) {
		if (!(error instanceof AppError)) throw error;
		return starter.kind === "user" || starter.kind === "session" ? await describeLostUser(services, workspaceId, starter.userId, error) : `The API key that started this run may no longer start runs: ${error.message}`;
	}
}

/** The change that took the starter's access, in words a reader of the run understands. */
async function describeLostUser(services: PlatformServices, workspaceId: string, userId: string, refusal: AppError): Promise<string> {
	const em = services.orm.em.fork();
	const workspace = await em.findOne(WorkspaceSchema, { id: workspaceId }, { fields: ["organization"] });
	const membership = workspace ? await em.findOne(MembershipSchema, { organization: workspace.organization, user: userId }, { fields: ["role"] }) : null;
	if (!membership) return "The user who started this run was removed from the workspace's organization";
	const needed = PERMISSIONS[START_PERMISSION].minimumRole;
	if (!roleAllows(membership.role, needed)) return `The role of the user who started this run is now ${membership.role}; running it needs ${needed} or above`;
	return `The user who started this run may no longer start runs in this workspace: ${refusal.message}`;
}
