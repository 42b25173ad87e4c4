import type { UseCaseContext } from "../platform-services";

/** last_used_at is written at most this often per connection: a busy client costs one UPDATE a minute, not one per call. */
const LAST_USED_RESOLUTION_SECONDS = 60;

/**
 * The live connection behind an access token (spec, MCP rule 4: the grant is re-checked on every
 * request): null when it was revoked, or does not belong to that user and client. One indexed
 * read; last_used_at is refreshed when it is older than a minute.
 */
export async function resolveLiveConnection(
	context: UseCaseContext,
	input: { connectionId: string; userId: string; clientId: string },
): Promise<{ organizationId: string | null; scopes: string[] } | null> {
	const connection = context.em.getConnection();
	const [row] = (await connection.execute(
		`select organization_id, scopes, (last_used_at is null or last_used_at < now() - make_interval(secs => ?)) as stale
		 from oauth_connections where id = ? and user_id = ? and client_id = ? and revoked_at is null`,
		[LAST_USED_RESOLUTION_SECONDS, input.connectionId, input.userId, input.clientId],
	)) as { organization_id: string | null; scopes: string[]; stale: boolean }[];
	if (!row) return null;
	if (row.stale) await connection.execute("update oauth_connections set last_used_at = now() where id = ?", [input.connectionId]);
	return { organizationId: row.organization_id, scopes: row.scopes };
}
