import { createHmac } from "node:crypto";
import { isIPv6 } from "node:net";
import { DeadlockException } from "@mikro-orm/core";
import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

export interface SignInThrottleOptions {
	/** Failed sign-ins for one email from one address before each further attempt waits (SIGN_IN_ATTEMPTS). */
	attemptsPerAccountAndAddress: number;
	/** Failed sign-ins from one address, whatever the emails, before each further attempt waits (SIGN_IN_ADDRESS_ATTEMPTS). */
	attemptsPerAddress: number;
	/**
	 * Failed sign-ins for one email from all addresses before each further attempt waits, each address
	 * counting only its first attemptsPerAccountAndAddress (SIGN_IN_ACCOUNT_ATTEMPTS).
	 */
	attemptsPerAccount: number;
	/** The first delay; each further failure doubles it (SIGN_IN_BACKOFF_SECONDS). */
	backoffSeconds: number;
	/** Delays grow to this at most (SIGN_IN_BACKOFF_MAX_SECONDS). */
	backoffMaxSeconds: number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleOptions = {
	attemptsPerAccountAndAddress: 5,
	attemptsPerAddress: 50,
	attemptsPerAccount: 100,
	backoffSeconds: 30,
	backoffMaxSeconds: 900,
};

/** A count starts over this long after the delay it earned has passed. */
const FORGET_AFTER_SECONDS = 3600;
/** Rows past their forget time deleted by each claim: more than a claim creates (three). */
const ROWS_FORGOTTEN_PER_CLAIM = 100;

interface ThrottleKey {
	id: string;
	allowance: number;
	/** How a refusal names what is throttled. */
	subject: string;
}

export interface SignInClaim {
	/** The password was right: the email's count from this address starts over, and this attempt is taken back from the others. */
	succeeded(): Promise<void>;
	/** The password was wrong: the delays it earned run from now, not from the claim (the check may have waited its turn). */
	failed(): Promise<void>;
}

/**
 * Claims one password check for a sign-in, before the password is hashed, in one transaction
 * over three counters shared by every instance: the email from this address, this address, and
 * the email from everywhere. Each counts failures (a sign-in being checked counts as one until it
 * succeeds), allows a number of them, then makes each further attempt wait: the first delay,
 * doubled per failure up to the maximum. An attempt that must wait is refused unchecked
 * (RATE_LIMITED, Retry-After) and counts nothing, so N parallel attempts get at most the allowance
 * of checks, and an attacker hammering someone's email from their own address delays only
 * themselves. The email-wide counter stops attacks spread over many addresses; each address adds
 * at most its own allowance to it, so one address cannot push it up. Unknown emails are counted
 * exactly like known ones. Keys are HMACs under SECRET_KEY.
 */
export async function claimSignInAttempt(context: UseCaseContext, input: { email: string; clientAddress: string }): Promise<SignInClaim> {
	const options = context.services.settings.signIn;
	const secret = context.services.secrets.deriveKey("sign-in-throttle");
	const keyId = (value: string) => createHmac("sha256", secret).update(value).digest("base64url");
	const address = throttledAddress(input.clientAddress);
	const pair: ThrottleKey = { id: keyId(`pair\n${input.email}\n${address}`), allowance: options.attemptsPerAccountAndAddress, subject: "for this email" };
	const fromAddress: ThrottleKey = { id: keyId(`address\n${address}`), allowance: options.attemptsPerAddress, subject: "from your network" };
	const account: ThrottleKey = { id: keyId(`account\n${input.email}`), allowance: options.attemptsPerAccount, subject: "for this email" };

	const claimed = await retryOnDeadlock(() =>
		context.em.transactional(async (tx) => {
			const run = (sql: string, parameters: unknown[]) => tx.getConnection().execute(sql, parameters, "all", tx.getTransactionContext());
			// Rows created or locked in one order (by id) on every instance, so concurrent claims never deadlock.
			const ordered = [pair, fromAddress, account].sort((a, b) => (a.id < b.id ? -1 : 1));
			const rows = (await run(
				`insert into sign_in_throttles (id, failures, blocked_until, forget_at) values ${ordered.map(() => "(?, 0, now(), now())").join(", ")}
				 on conflict (id) do update set failures = sign_in_throttles.failures
				 returning id,
				   case when forget_at <= now() then 0 else failures end as failures,
				   greatest(0, ceil(extract(epoch from blocked_until - now())))::int as wait_seconds`,
				ordered.map((key) => key.id),
			)) as { id: string; failures: number; wait_seconds: number }[];
			const row = (key: ThrottleKey) => rows.find((candidate) => candidate.id === key.id) as (typeof rows)[number];

			const waits = [pair, fromAddress, account].map((key) => ({ key, seconds: row(key).wait_seconds })).filter((wait) => wait.seconds > 0);
			if (waits.length > 0) {
				const longest = waits.reduce((a, b) => (b.seconds > a.seconds ? b : a));
				throw new AppError("RATE_LIMITED", `Too many failed sign-ins ${longest.key.subject}. Try again in ${describeWait(longest.seconds)}.`, {
					headers: { "Retry-After": String(longest.seconds) },
				});
			}

			const countsForAccount = row(pair).failures < pair.allowance;
			const counted = [pair, fromAddress, ...(countsForAccount ? [account] : [])].map((key) => {
				const failures = row(key).failures + 1;
				return { id: key.id, failures, delay: delaySeconds(failures, key.allowance, options) };
			});
			await run(
				`update sign_in_throttles as throttle set
				   failures = counted.failures,
				   blocked_until = now() + make_interval(secs => counted.delay),
				   forget_at = now() + make_interval(secs => counted.delay + ?)
				 from (values ${counted.map(() => "(?, ?::int, ?::float8)").join(", ")}) as counted(id, failures, delay)
				 where throttle.id = counted.id`,
				[FORGET_AFTER_SECONDS, ...counted.flatMap((entry) => [entry.id, entry.failures, entry.delay])],
			);
			return { countsForAccount, delays: counted.filter((entry) => entry.delay > 0) };
		}),
	);

	const connection = context.em.getConnection();
	// Counts nobody has added to for a while; skip locked: never wait for, nor deadlock with, a claim.
	await connection.execute(
		"delete from sign_in_throttles where id in (select id from sign_in_throttles where forget_at < now() order by forget_at limit ? for update skip locked)",
		[ROWS_FORGOTTEN_PER_CLAIM],
	);

	return {
		async succeeded() {
			await connection.execute("delete from sign_in_throttles where id = ?", [pair.id]);
			// One row at a time: no lock is held while waiting for another.
			for (const key of claimed.countsForAccount ? [fromAddress, account] : [fromAddress]) {
				await connection.execute(
					`update sign_in_throttles set
					   failures = greatest(failures - 1, 0),
					   blocked_until = case when failures - 1 < ? then least(blocked_until, now()) else blocked_until end
					 where id = ?`,
					[key.allowance, key.id],
				);
			}
		},
		async failed() {
			for (const { id, delay } of claimed.delays) {
				await connection.execute(
					`update sign_in_throttles set
					   blocked_until = greatest(blocked_until, now() + make_interval(secs => ?)),
					   forget_at = greatest(forget_at, now() + make_interval(secs => ?))
					 where id = ?`,
					[delay, delay + FORGET_AFTER_SECONDS, id],
				);
			}
		},
	};
}

function delaySeconds(failures: number, allowance: number, options: SignInThrottleOptions): number {
	if (failures < allowance) return 0;
	return Math.min(options.backoffMaxSeconds, options.backoffSeconds * 2 ** Math.min(failures - allowance, 30));
}

function describeWait(seconds: number): string {
	if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
	const minutes = Math.ceil(seconds / 60);
	return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** One subscriber: an IPv6 client is counted by its /64, which anyone holding one can rotate through. */
function throttledAddress(address: string): string {
	if (!isIPv6(address)) return address;
	const [head, tail] = address.split("%")[0].split("::");
	const groups = (part: string | undefined) => (part ? part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group])) : []);
	const before = groups(head);
	const after = groups(tail);
	const full = tail === undefined ? before : [...before, ...Array(Math.max(0, 8 - before.length - after.length)).fill("0"), ...after];
	return `${full
		.slice(0, 4)
		.map((group) => Number.parseInt(group, 16).toString(16))
		.join(":")}::/64`;
}

async function retryOnDeadlock<T>(work: () => Promise<T>): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await work();
		} catch (error) {
			if (!(error instanceof DeadlockException) || attempt >= 3) throw error;
		}
	}
}
