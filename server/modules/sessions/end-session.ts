import type { UseCaseContext } from "../platform-services";

/** Signs out: this session, or every session of its user (sign-out everywhere). Effective on the next request on every instance. */
export async function endSession(context: UseCaseContext, input: { sessionId: string; everywhere: boolean }): Promise<void> {
	const connection = context.em.getConnection();
	if (input.everywhere) {
		await connection.execute(
			"update user_sessions set ended_at = now() where ended_at is null and user_id = (select user_id from user_sessions where id = ?)",
			[input.sessionId],
		);
		return;
	}
	await connection.execute("update user_sessions set ended_at = now() where id = ? and ended_at is null", [input.sessionId]);
}

/** Ends every session of a user (password changed, account removed): their browsers sign in again. */
export async function endUserSessions(context: UseCaseContext, input: { userId: string }): Promise<void> {
	await context.em.getConnection().execute("update user_sessions set ended_at = now() where user_id = ? and ended_at is null", [input.userId]);
}

/** Sessions ended or expired more than a day ago are never read again. */
export async function deleteExpiredSessions(context: UseCaseContext): Promise<void> {
	await context.em
		.getConnection()
		.execute("delete from user_sessions where (ended_at is not null and ended_at < now() - interval '1 day') or expires_at < now() - interval '1 day'");
}
