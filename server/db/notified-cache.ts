import type { DatabaseNotifications, NotificationChannel } from "./notifications";

export interface NotifiedCacheOptions<V> {
	/** The notification payload an entry answers to (a workspace id, a key id, a source id). */
	tagOf: (key: string, value: V) => string;
	/** Oldest entries are dropped past this many. */
	maxEntries?: number;
}

/**
 * A per-process cache kept true by NOTIFY: a message on `channel` drops every entry whose tag
 * equals the payload. Loads are shared by concurrent callers (the promise is cached) and a
 * failed load is forgotten. While the process's notification connection is down, every call
 * reads through and nothing is kept, since an invalidation could be missed; after a reconnect
 * everything is dropped. A load that raced an invalidation serves its caller but is not kept.
 * Whether a change waits for every process to drop its entries is the channel's choice
 * (NotificationChannel.acknowledged), made where the channel is defined.
 */
export class NotifiedCache<V> {
	private readonly entries = new Map<string, { promise: Promise<V>; tag?: string }>();
	/** Bumped on every invalidation: a load that started before one must not be kept. */
	private generation = 0;

	constructor(
		private readonly notifications: DatabaseNotifications,
		channel: NotificationChannel,
		private readonly options: NotifiedCacheOptions<V>,
	) {
		notifications.subscribe(channel, (payload) => this.invalidate(payload));
		notifications.onReset(() => this.clear());
	}

	/** The cached value for `key`, or `load()`'s, kept while nothing invalidates it. */
	get(key: string, load: () => Promise<V>): Promise<V> {
		if (!this.notifications.listening) return load();
		const cached = this.entries.get(key);
		if (cached) return cached.promise;
		const generation = this.generation;
		const promise = load();
		const entry: { promise: Promise<V>; tag?: string } = { promise };
		this.entries.set(key, entry);
		if (this.options.maxEntries !== undefined && this.entries.size > this.options.maxEntries) {
			this.entries.delete(this.entries.keys().next().value as string);
		}
		promise.then(
			(value) => {
				if (this.entries.get(key) !== entry) return;
				if (generation !== this.generation || !this.notifications.listening) this.entries.delete(key);
				else entry.tag = this.options.tagOf(key, value);
			},
			() => {
				if (this.entries.get(key) === entry) this.entries.delete(key);
			},
		);
		return promise;
	}

	/** Synchronously drops what `tag` names (and every load still in flight, whose tag is unknown yet). */
	invalidate(tag: string): void {
		this.generation += 1;
		for (const [key, entry] of this.entries) if (entry.tag === undefined || entry.tag === tag) this.entries.delete(key);
	}

	clear(): void {
		this.generation += 1;
		this.entries.clear();
	}
}
