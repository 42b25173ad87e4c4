import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

/**
 * Revokes a connection: its access tokens fail on their next request (the MCP endpoint checks
 * the connection on every call) and every stored piece of its grant goes, refresh tokens
 * included. The operator may revoke any connection, a signed-in user only their own (another's
 * is NOT_FOUND). Revoking twice is not an error.
 */
export async function revokeConnection(context: UseCaseContext, input: { id: string; signedInUserId?: string }): Promise<{ id: string; revoked: true }> {
	// A person in the dashboard revokes their own; the operator anyone's.
	const signedIn = context.principal.kind === "session" ? context.principal.userId : input.signedInUserId;
	if (context.principal.kind !== "operator" && signedIn === undefined) throw AppError.notFound("Connection");
	return context.em.transactional(async (em) => {
		const connection = em.getConnection();
		const transaction = em.getTransactionContext();
		const [row] = (await connection.execute(
			"select id, user_id, grant_id from oauth_connections where id = ? for update",
			[input.id],
			"all",
			transaction,
		)) as { id: string; user_id: string; grant_id: string }[];
		// A signed-in user names only their own connections; another's is as absent as an unknown one.
		if (!row || (signedIn !== undefined && row.user_id !== signedIn)) throw AppError.notFound("Connection");
		await connection.execute("update oauth_connections set revoked_at = coalesce(revoked_at, now()), updated_at = now() where id = ?", [row.id], "all", transaction);
		await connection.execute("delete from oauth_records where grant_id = ?", [row.grant_id], "all", transaction);
		return { id: row.id, revoked: true as const };
	});
}
