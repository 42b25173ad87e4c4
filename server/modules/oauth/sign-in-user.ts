import { AppError } from "../../shared/app-error";
import { sha256Hex, verifyPassword } from "../../shared/crypto";
import type { UseCaseContext } from "../platform-services";

/** Failed sign-ins allowed per email within one window before further attempts are refused unchecked. */
export const SIGN_IN_FAILURES_ALLOWED = 5;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * Checks an email and password on the consent screen and the connected-applications page. After
 * SIGN_IN_FAILURES_ALLOWED failures for one email within the window, attempts are refused without
 * looking at the password (RATE_LIMITED with the seconds left), on every instance alike: the
 * counter is a row in PostgreSQL. Unknown emails count too and take as long as known ones, so
 * neither the answer nor its timing says who has an account.
 */
export async function signInUser(context: UseCaseContext, input: { email: string; password: string }): Promise<{ userId: string }> {
	const email = input.email.trim().toLowerCase();
	if (email === "" || input.password === "") throw new AppError("UNAUTHENTICATED", "Enter your email and password");
	const connection = context.em.getConnection();
	const throttleId = sha256Hex(`sign-in:${email}`);
	const [throttle] = (await connection.execute(
		"select failures, extract(epoch from (window_started_at + make_interval(secs => ?)) - now())::int as seconds_left from sign_in_failures where id = ?",
		[SIGN_IN_WINDOW_SECONDS, throttleId],
	)) as { failures: number; seconds_left: number }[];
	if (throttle && throttle.seconds_left > 0 && throttle.failures >= SIGN_IN_FAILURES_ALLOWED) {
		const minutes = Math.max(1, Math.ceil(throttle.seconds_left / 60));
		throw new AppError("RATE_LIMITED", `Too many failed sign-ins for this email. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
			headers: { "Retry-After": String(throttle.seconds_left) },
		});
	}
	const [user] = (await connection.execute("select id, password_hash from users where email = ?", [email])) as { id: string; password_hash: string }[];
	// A throwaway hash for unknown emails keeps the timing the same.
	const valid = await verifyPassword(input.password, user?.password_hash ?? UNKNOWN_USER_HASH);
	if (user && valid) {
		await connection.execute("delete from sign_in_failures where id = ?", [throttleId]);
		return { userId: user.id };
	}
	await connection.execute(
		`insert into sign_in_failures (id, failures, window_started_at) values (?, 1, now())
		 on conflict (id) do update set
		   failures = case when sign_in_failures.window_started_at + make_interval(secs => ?) < now() then 1 else sign_in_failures.failures + 1 end,
		   window_started_at = case when sign_in_failures.window_started_at + make_interval(secs => ?) < now() then now() else sign_in_failures.window_started_at end`,
		[throttleId, SIGN_IN_WINDOW_SECONDS, SIGN_IN_WINDOW_SECONDS],
	);
	throw new AppError("INVALID_CREDENTIALS", "That email and password do not match an account");
}

/** scrypt of a random password with the current parameters; no password verifies against it. */
const UNKNOWN_USER_HASH = "scrypt$131072$8$1$AAAAAAAAAAAAAAAAAAAAAA$YXl5q3l2cmVqZ2Y0c2U3a3p6eHh4eHh4eHh4eHh4eHg";
