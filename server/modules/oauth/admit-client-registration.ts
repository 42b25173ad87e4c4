import { isIPv6 } from "node:net";
import { AppError } from "../../shared/app-error";
import { sha256Hex } from "../../shared/crypto";
import type { UseCaseContext } from "../platform-services";

export const REGISTRATION_WINDOW_SECONDS = 3600;

/**
 * The bucket an address counts in: an IPv4 address alone (also written as ::ffff:a.b.c.d), an
 * IPv6 address by its /64, since one subscriber typically holds a whole /64.
 */
export function registrationBucketOf(address: string): string {
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
	if (mapped) return mapped[1];
	if (!isIPv6(address)) return address;
	const [head, tail = ""] = address.split("::");
	const headGroups = head === "" ? [] : head.split(":");
	const tailGroups = tail === "" ? [] : tail.split(":");
	const groups = [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
	return `${groups
		.slice(0, 4)
		.map((group) => group.toLowerCase().replace(/^0+(?=.)/, ""))
		.join(":")}::/64`;
}

/**
 * Counts one dynamic client registration from `clientAddress` (the TCP peer, or the client a
 * trusted proxy names: TRUSTED_PROXIES) against the limit
 * per hour, on every instance alike (a row in PostgreSQL, one atomic upsert). Past the limit it
 * is refused with RATE_LIMITED and the seconds until the window ends. A limit of 0 counts nothing.
 */
export async function admitClientRegistration(context: UseCaseContext, input: { clientAddress: string; registrationsPerHour: number }): Promise<void> {
	if (input.registrationsPerHour <= 0) return;
	const id = sha256Hex(`registration:${registrationBucketOf(input.clientAddress)}`);
	const [window] = (await context.em.getConnection().execute(
		`insert into oauth_registration_windows as w (id, registrations, window_started_at) values (?, 1, now())
		 on conflict (id) do update set
		   registrations = case when w.window_started_at + make_interval(secs => ?) <= now() then 1 else w.registrations + 1 end,
		   window_started_at = case when w.window_started_at + make_interval(secs => ?) <= now() then now() else w.window_started_at end
		 returning registrations, ceil(extract(epoch from (window_started_at + make_interval(secs => ?)) - now()))::int as seconds_left`,
		[id, REGISTRATION_WINDOW_SECONDS, REGISTRATION_WINDOW_SECONDS, REGISTRATION_WINDOW_SECONDS],
	)) as { registrations: number; seconds_left: number }[];
	if (window.registrations > input.registrationsPerHour) {
		const secondsLeft = Math.max(1, window.seconds_left);
		const minutes = Math.ceil(secondsLeft / 60);
		throw new AppError("RATE_LIMITED", `Too many client registrations from this address; try again in ${minutes} minute${minutes === 1 ? "" : "s"}`, {
			headers: { "Retry-After": String(secondsLeft) },
		});
	}
}

/** Windows that ended: nothing reads them again. */
export async function deleteEndedRegistrationWindows(context: UseCaseContext): Promise<void> {
	await context.em.getConnection().execute("delete from oauth_registration_windows where window_started_at + make_interval(secs => ?) < now()", [REGISTRATION_WINDOW_SECONDS]);
}
