import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../shared/crypto";
import type { UseCaseContext } from "../platform-services";

/**
 * The Connected applications page's sessions: the cookie holds a random token, the table only its
 * hash. A session ends when it expires or its person signs out, and then on every instance and
 * for every copy of the cookie.
 */
export async function startPageSession(context: UseCaseContext, input: { userId: string; expiresAt: Date }): Promise<{ token: string }> {
	const token = randomBytes(32).toString("base64url");
	await context.em
		.getConnection()
		.execute("insert into oauth_page_sessions (id, user_id, expires_at, created_at) values (?, ?, ?, now())", [sha256Hex(token), input.userId, input.expiresAt]);
	return { token };
}

/** The signed-in person of a live session, or null. */
export async function findPageSession(context: UseCaseContext, input: { token: string }): Promise<{ userId: string } | null> {
	const [row] = (await context.em.getConnection().execute("select user_id from oauth_page_sessions where id = ? and expires_at > now()", [sha256Hex(input.token)])) as {
		user_id: string;
	}[];
	return row ? { userId: row.user_id } : null;
}

export async function endPageSession(context: UseCaseContext, input: { token: string }): Promise<void> {
	await context.em.getConnection().execute("delete from oauth_page_sessions where id = ?", [sha256Hex(input.token)]);
}

export async function deleteExpiredPageSessions(context: UseCaseContext): Promise<void> {
	await context.em.getConnection().execute("delete from oauth_page_sessions where expires_at < now()");
}
