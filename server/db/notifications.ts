import pg from "pg";
import type { Logger } from "../shared/logger";

/** application_name of every listener connection, so a sender can find them in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "platform-cache-listener";
/** Each listener NOTIFYs here, `<backend pid>:<channel>:<payload>`, once its handlers have run. */
const ACK_CHANNEL = "cache_invalidation_ack";
const ACK_TIMEOUT_MS = 5_000;
const ACK_POLL_MS = 100;
const RECONNECT_FIRST_DELAY_MS = 100;
const RECONNECT_MAX_DELAY_MS = 5_000;

/**
 * A NOTIFY channel, declared by the module that owns it. `acknowledged` channels make `publish`
 * wait until every listening process has handled the message, so a change applies to the very
 * next request on every instance (key revocation, credential changes, publish and rollback);
 * the others are fire-and-forget (a stale answer for a moment is harmless, e.g. search vectors).
 */
export interface NotificationChannel {
	readonly name: string;
	readonly acknowledged: boolean;
}

export function defineChannel(name: string, options: { acknowledged: boolean }): NotificationChannel {
	if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Channel name '${name}' must be a lowercase SQL identifier`);
	return Object.freeze({ name, acknowledged: options.acknowledged });
}

/**
 * The process's one PostgreSQL connection LISTENing for cache invalidations, on every channel
 * that any module subscribed to. While it is not connected, `listening` is false and caches
 * read through (a NOTIFY sent then is lost); it reconnects with exponential backoff, and every
 * cache clears itself on reconnect (onReset), since it may have missed messages.
 */
export class DatabaseNotifications {
	private client: pg.Client | null = null;
	private clientPid = 0;
	private connecting: Promise<void> | null = null;
	private closed = false;
	private reconnectDelayMs = RECONNECT_FIRST_DELAY_MS;
	private reconnectTimer: NodeJS.Timeout | null = null;
	private readonly handlers = new Map<string, Set<(payload: string) => void>>();
	private readonly resetHandlers = new Set<() => void>();
	private readonly connectedWaiters = new Set<() => void>();

	constructor(
		private readonly databaseUrl: string,
		private readonly logger: Logger,
	) {}

	get listening(): boolean {
		return this.client !== null;
	}

	/** The listener connection's PostgreSQL backend pid while listening (diagnostics: pg_stat_activity). */
	get backendPid(): number | null {
		return this.client ? this.clientPid : null;
	}

	/** Any time: a channel subscribed after start is LISTENed at once (and after every reconnect). */
	subscribe(channel: NotificationChannel, handler: (payload: string) => void): void {
		const isNew = !this.handlers.has(channel.name);
		const set = this.handlers.get(channel.name) ?? new Set();
		set.add(handler);
		this.handlers.set(channel.name, set);
		if (isNew && this.client) this.client.query(`LISTEN ${pg.escapeIdentifier(channel.name)}`).catch((error) => this.lost(this.client, error));
	}

	/** Called whenever notifications may have been missed (disconnect, reconnect). */
	onReset(handler: () => void): void {
		this.resetHandlers.add(handler);
	}

	/** Resolves once the connection is (again) listening: for callers that must not proceed reading through. */
	whenListening(): Promise<void> {
		if (this.client) return Promise.resolve();
		return new Promise((resolve) => this.connectedWaiters.add(resolve));
	}

	/** Connects; a failure is thrown (the caller decides whether to start without), and retried in the background. */
	async start(): Promise<void> {
		this.connecting ??= this.connect().finally(() => {
			this.connecting = null;
		});
		try {
			await this.connecting;
		} catch (error) {
			this.scheduleReconnect();
			throw error;
		}
	}

	private async connect(): Promise<void> {
		// TCP keepalive: a listener cut off without a FIN (a network partition) is noticed, not trusted forever.
		const client = new pg.Client({ connectionString: this.databaseUrl, application_name: LISTENER_APPLICATION_NAME, keepAlive: true });
		let backendPid = 0;
		client.on("notification", (message) => {
			for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? "");
			// Handlers are synchronous: the caches have forgotten the entry by now (see publish).
			client.query("select pg_notify($1, $2)", [ACK_CHANNEL, `${backendPid}:${message.channel}:${message.payload ?? ""}`]).catch(() => {});
		});
		client.on("error", (error) => this.lost(client, error));
		client.on("end", () => this.lost(client));
		try {
			await client.connect();
			backendPid = Number((await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0].pid);
			for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
		} catch (error) {
			client.removeAllListeners("end");
			await client.end().catch(() => {});
			throw error;
		}
		if (this.closed) {
			await client.end().catch(() => {});
			return;
		}
		this.client = client;
		this.clientPid = backendPid;
		this.reconnectDelayMs = RECONNECT_FIRST_DELAY_MS;
		// Whatever was cached while disconnected was read through, but drop it anyway: cheap and certain.
		for (const handler of this.resetHandlers) handler();
		for (const resolve of this.connectedWaiters) resolve();
		this.connectedWaiters.clear();
	}

	private lost(client: pg.Client | null, error?: unknown): void {
		if (client === null || this.client !== client) return;
		this.client = null;
		for (const handler of this.resetHandlers) handler();
		client.end().catch(() => {});
		if (this.closed) return;
		this.logger.warn("notification connection lost; caches read through until it is back", { error });
		this.scheduleReconnect();
	}

	private scheduleReconnect(): void {
		if (this.closed || this.reconnectTimer) return;
		// Jittered exponential backoff: a database restart must not be met by every instance at once.
		const delay = this.reconnectDelayMs * (0.5 + Math.random() / 2);
		this.reconnectDelayMs = Math.min(RECONNECT_MAX_DELAY_MS, this.reconnectDelayMs * 2);
		this.reconnectTimer = setTimeout(() => {
			this.reconnectTimer = null;
			this.start().catch((error) => this.logger.debug("notification reconnect failed; retrying", { error }));
		}, delay);
		this.reconnectTimer.unref();
	}

	/**
	 * NOTIFY `channel` after the change has committed. For an acknowledged channel, returns once
	 * every process listening for cache invalidations has handled it: listener connections present
	 * now are found by their application_name and each acknowledges on ACK_CHANNEL after its
	 * handlers ran. One that connects later subscribed after the commit, so whatever it caches was
	 * read after it. One that disappears no longer needs to answer (its process reads through
	 * until it reconnects). One that does not answer within 5 s has its connection terminated:
	 * that process then resets its caches and reads through.
	 */
	async publish(channel: NotificationChannel, payload: string): Promise<void> {
		const client = new pg.Client({ connectionString: this.databaseUrl });
		await client.connect();
		try {
			if (!channel.acknowledged) {
				await client.query("select pg_notify($1, $2)", [channel.name, payload]);
				return;
			}
			await publishAndAwaitAcknowledgements(client, channel.name, payload);
		} finally {
			await client.end().catch(() => {});
		}
	}

	async close(): Promise<void> {
		this.closed = true;
		if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
		await this.connecting?.catch(() => {});
		const client = this.client;
		this.client = null;
		await client?.end().catch(() => {});
	}
}

async function publishAndAwaitAcknowledgements(client: pg.Client, channel: string, payload: string): Promise<void> {
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
			(await client.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1 and datname = current_database()", [LISTENER_APPLICATION_NAME])).rows.map(
				(row) => Number(row.pid),
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
}
