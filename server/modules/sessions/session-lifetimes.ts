/** How long a dashboard session lives (README, Configuration: SESSION_IDLE_MINUTES, SESSION_LIFETIME_HOURS). */
export interface SessionLifetimes {
	/** Unused this long, a session ends. */
	idleSeconds: number;
	/** A session ends this long after sign-in, used or not. */
	absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIFETIMES: Readonly<SessionLifetimes> = Object.freeze({ idleSeconds: 2 * 3600, absoluteSeconds: 7 * 24 * 3600 });

/** last_seen_at is written at most this often: a page making ten calls a second costs no ten writes. */
export const LAST_SEEN_RESOLUTION_SECONDS = 60;
