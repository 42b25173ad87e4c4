import { createClient } from "@redis/client";
import type { Logger } from "../../shared/logger";

/** Rate-limit windows are one minute; a counter outlives its window by a minute, then Redis drops it. */
const COUNTER_TTL_MS = 120_000;

/**
 * Where a process claims blocks of a rate-limit window's requests: adds `amount` to the window's
 * counter for `subject` and returns the new total (consume-request-quota.ts turns that into the
 * requests granted).
 */
export interface WindowCounter {
	add(subject: string, windowStart: number, amount: number): Promise<number>;
	close(): Promise<void>;
}

function connect(url: string) {
	// Reconnects forever, at most 2 s apart.
	return createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 2_000) } });
}

/**
 * Window counters in Redis (REDIS_URL): INCRBY and PEXPIRE in one MULTI, so every instance using
 * the same Redis shares one counter per key and window and PostgreSQL takes no rate-limit writes.
 * While Redis is not connected nothing is sent or queued: add() fails at once and the caller falls
 * back to the PostgreSQL counter, so an outage degrades to the default store instead of stalling
 * generations (a command sent while reconnecting would wait for the next attempt). The client
 * reconnects by itself.
 */
export class RedisWindowCounter implements WindowCounter {
	private constructor(private readonly client: ReturnType<typeof connect>) {}

	static start(url: string, logger: Logger): RedisWindowCounter {
		const client = connect(url);
		let reported = false;
		client.on("error", (error: unknown) => {
			// Once per outage: a reconnect loop would otherwise log every attempt.
			if (!reported) logger.warn("Redis unavailable; rate limits use PostgreSQL until it is back", { error });
			reported = true;
		});
		client.on("ready", () => {
			reported = false;
		});
		client.connect().catch(() => {
			// Reported through "error"; the client keeps reconnecting.
		});
		return new RedisWindowCounter(client);
	}

	async add(subject: string, windowStart: number, amount: number): Promise<number> {
		if (!this.client.isReady) throw new Error("Redis is not connected");
		const key = `rate-limit:${subject}:${windowStart}`;
		const [total] = await this.client.multi().incrBy(key, amount).pExpire(key, COUNTER_TTL_MS).exec();
		return Number(total);
	}

	async close(): Promise<void> {
		if (this.client.isOpen) await this.client.close();
		else this.client.destroy();
	}
}
