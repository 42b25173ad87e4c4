import type { RawConnection } from "./raw-connection";

/**
 * An advisory lock of a PostgreSQL session: a name (hashed), or a class and a name for families of
 * locks kept apart from every other (the fold locks: one per source and kind).
 */
export type SessionLockKey = string | readonly [number, string];

/**
 * Runs `work` holding the session-level advisory lock `key` on `connection`, so every process on
 * the database takes its turn; released after, also when `work` fails, and with the session if the
 * process dies. A failed release is left to the session's end (the connection is broken then).
 */
export async function withSessionLock<T>(connection: RawConnection, key: SessionLockKey, work: () => Promise<T>): Promise<T> {
	const [argument, values] = typeof key === "string" ? ["hashtext($1)", [key]] : ["$1, hashtext($2)", [...key]];
	await connection.query(`select pg_advisory_lock(${argument})`, values);
	try {
		return await work();
	} finally {
		await connection.query(`select pg_advisory_unlock(${argument})`, values).catch(() => {});
	}
}
