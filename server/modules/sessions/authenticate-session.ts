import { sha256Hex } from "../../shared/crypto";
import type { UseCaseContext } from "../platform-services";
import { LAST_SEEN_RESOLUTION_SECONDS } from "./session-lifetimes";

export interface LiveSession {
	sessionId: string;
	userId: string;
	tokenHash: string;
	expiresAt: Date;
}

/**
 * The live session a cookie's token names, or null: unknown, signed out, past its absolute
 * lifetime, or idle too long. One statement that also records the use (at most once a minute), so
 * two instances agree and a session ended on one is refused by the other on its next request.
 */
export async function authenticateSession(context: UseCaseContext, input: { token: string }): Promise<LiveSession | null> {
	if (!/^[A-Za-z0-9_-]{43}$/.test(input.token)) return null;
	const tokenHash = sha256Hex(input.token);
	const { idleSeconds } = context.services.settings.sessions;
	const rows = (await context.em.getConnection().execute(
		`update user_sessions set last_seen_at = case when last_seen_at < now() - make_interval(secs => ?) then now() else last_seen_at end
		 where token_hash = ? and ended_at is null and expires_at > now() and last_seen_at > now() - make_interval(secs => ?)
		 returning id, user_id, expires_at`,
		[LAST_SEEN_RESOLUTION_SECONDS, tokenHash, idleSeconds],
	)) as { id: string; user_id: string; expires_at: Date }[];
	const row = rows[0];
	return row ? { sessionId: row.id, userId: row.user_id, tokenHash, expiresAt: new Date(row.expires_at) } : null;
}
