import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";
import { claimSignInAttempt } from "./sign-in-throttle";

/**
 * Checks an email and password on the consent screen and the connected-applications page, for a
 * client at `clientAddress` (the transport's TrustedProxies decides it). In order: a place in this
 * process's password-hashing line (else RATE_LIMITED: the server is busy), a claim on the sign-in
 * throttle (else RATE_LIMITED with the wait: sign-in-throttle.ts), then the password. Unknown
 * emails go through every step, hashing included, so neither the answer nor its timing says who
 * has an account.
 */
export async function signInUser(context: UseCaseContext, input: { email: string; password: string; clientAddress: string }): Promise<{ userId: string }> {
	const email = input.email.trim().toLowerCase();
	if (email === "" || input.password === "") throw new AppError("UNAUTHENTICATED", "Enter your email and password");
	// First, so a sign-in refused for a busy server is neither checked nor counted against anyone.
	const turn = context.services.passwords.reserve();
	let user: { id: string; password_hash: string } | undefined;
	let claim: Awaited<ReturnType<typeof claimSignInAttempt>>;
	let valid: boolean;
	try {
		claim = await claimSignInAttempt(context, { email, clientAddress: input.clientAddress });
		[user] = (await context.em.getConnection().execute("select id, password_hash from users where email = ?", [email])) as { id: string; password_hash: string }[];
		valid = await turn.verify(input.password, user?.password_hash ?? null);
	} finally {
		turn.release();
	}
	if (!user || !valid) {
		await claim.failed();
		throw new AppError("INVALID_CREDENTIALS", "That email and password do not match an account");
	}
	await claim.succeeded();
	return { userId: user.id };
}
