import pg from "pg";
import type { Logger } from "../shared/logger";

const RECONNECT_DELAY_MS = 1000;
/** application_name of every listener connection, so a sender can find them in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "platform-cache-listener";
/** Each listener NOTIFYs here, `<backend pid>:<channel>:<payload>`, once its handlers have run. */
export const ACK_CHANNEL = "cache_invalidation_ack";
const ACK_TIMEOUT_MS = 5_000;
const ACK_POLL_MS = 100;

/**
 * One dedicated PostgreSQL connection LISTENing on a few channels, so in-process caches learn
 * of changes made by any process (other server instances, the operator CLI). While it is not
 * connected, `listening` is false and caches must read through: a NOTIFY sent then is lost.
 */
export class DatabaseNotifications {
	private client: pg.Client | null = null;
	private connected = false;
	private closed = false;
	private readonly handlers = new Map<string, Set<(payload: string) => void>>();
	private readonly resetHandlers = new Set<() => void>();

	constructor(
		private readonly databaseUrl: string,
		private readonly channels: readonly string[],
		private readonly logger: Logger,
	) {}

	get listening(): boolean {
		return this.connected;
	}

	on(channel: string, handler: (payload: string) => void): void {
		if (!this.channels.includes(channel)) throw new Error(`Channel ${channel} is not listened to`);
		const set = this.handlers.get(channel) ?? new Set();
		set.add(handler);
		this.handlers.set(channel, set);
	}

	/** Called whenever notifications may have been missed (disconnect); caches clear themselves. */
	onReset(handler: () => void): void {
		this.resetHandlers.add(handler);
	}

	async start(): Promise<void> {
		const client = new pg.Client({ connectionString: this.databaseUrl, application_name: LISTENER_APPLICATION_NAME });
		let backendPid = 0;
		client.on("notification", (message) => {
			for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? "");
			// Handlers are synchronous: the caches have forgotten the entry by now (see notifyAndAwaitListeners).
			client.query("select pg_notify($1, $2)", [ACK_CHANNEL, `${backendPid}:${message.channel}:${message.payload ?? ""}`]).catch(() => {});
		});
		client.on("error", (error) => this.lost(client, error));
		client.on("end", () => this.lost(client));
		await client.connect();
		backendPid = Number((await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0].pid);
		for (const channel of this.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
		this.client = client;
		this.connected = true;
	}

	private lost(client: pg.Client, error?: unknown): void {
		if (this.client !== client) return;
		this.client = null;
		this.connected = false;
		for (const handler of this.resetHandlers) handler();
		if (this.closed) return;
		this.logger.warn("notification connection lost; caches read through until it is back", { error });
		const retry = () => {
			if (this.closed) return;
			this.start().catch(() => setTimeout(retry, RECONNECT_DELAY_MS).unref());
		};
		setTimeout(retry, RECONNECT_DELAY_MS).unref();
	}

	async close(): Promise<void> {
		this.closed = true;
		const client = this.client;
		this.client = null;
		this.connected = false;
		await client?.end().catch(() => {});
	}
}

/**
 * NOTIFY `channel` and wait until every process listening for cache invalidations has handled it,
 * so the change applies to the very next request anywhere (used for API-key revocation).
 *
 * Call it after the change has committed. Listener connections present then are found by their
 * application_name; each acknowledges on ACK_CHANNEL after dropping its cache entry. One that
 * connects later subscribed after the commit, so whatever it caches was read after it. One that
 * disappears no longer needs to answer (its process reads through until it reconnects). One that
 * does not answer within 5 s has its connection terminated: that process then resets its caches
 * and reads through, and this function returns only after the termination.
 */
export async function notifyAndAwaitListeners(databaseUrl: string, channel: string, payload: string): Promise<void> {
	const client = new pg.Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		const waiting = new Set<number>();
		let wake = () => {};
		client.on("notification", (message) => {
			const [pid, ...rest] = (message.payload ?? "").split(":");
			if (rest.join(":") === `${channel}:${payload}`) waiting.delete(Number(pid));
			if (waiting.size === 0) wake();
		});
		await client.query(`LISTEN ${pg.escapeIdentifier(ACK_CHANNEL)}`);
		const listeners = async () =>
			new Set(
				(await client.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1 and datname = current_database()", [LISTENER_APPLICATION_NAME])).rows.map((row) =>
					Number(row.pid),
				),
			);
		for (const pid of await listeners()) waiting.add(pid);
		await client.query("select pg_notify($1, $2)", [channel, payload]);
		const deadline = Date.now() + ACK_TIMEOUT_MS;
		while (waiting.size > 0 && Date.now() < deadline) {
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, ACK_POLL_MS);
				wake = () => {
					clearTimeout(timer);
					resolve();
				};
			});
			if (waiting.size === 0) break;
			const alive = await listeners();
			for (const pid of waiting) if (!alive.has(pid)) waiting.delete(pid);
		}
		for (const pid of waiting) await client.query("select pg_terminate_backend($1)", [pid]);
	} finally {
		await client.end().catch(() => {});
	}
}
