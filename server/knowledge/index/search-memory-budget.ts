/**
 * The memory one process gives to the per-source search structures (lexicons and vector matrices
 * of every source it has searched), shared by both caches: past the budget the least recently
 * searched sources leave memory first, and their next search loads them again (off the event
 * loop). A source's structures go together: one never evicts the other half of its own source (a
 * search needs both), so a source bigger than the whole budget is still kept while it is the one
 * being searched; dropping it would make every search a full load.
 */
export class SearchMemoryBudget {
	/** Held structures in least- to most-recently used order (a Map keeps insertion order). */
	private readonly held = new Map<string, { bytes: number; source: string; evict(): void }>();
	private total = 0;
	readonly statistics = { evictions: 0 };

	constructor(readonly limitBytes: number) {}

	get usedBytes(): number {
		return this.total;
	}

	/**
	 * `key` (a structure of `source`) was just loaded or refreshed and now takes `bytes`; the least
	 * recently used structures of other sources leave past the budget.
	 */
	hold(key: string, source: string, bytes: number, evict: () => void): void {
		this.release(key);
		this.held.set(key, { bytes, source, evict });
		this.total += bytes;
		for (const [other, entry] of this.held) {
			if (this.total <= this.limitBytes) break;
			if (entry.source === source) continue;
			this.release(other);
			this.statistics.evictions++;
			entry.evict();
		}
	}

	/** `key` was searched: it becomes the most recently used. */
	touch(key: string): void {
		const entry = this.held.get(key);
		if (!entry) return;
		this.held.delete(key);
		this.held.set(key, entry);
	}

	release(key: string): void {
		const entry = this.held.get(key);
		if (!entry) return;
		this.held.delete(key);
		this.total -= entry.bytes;
	}

	/** Every key starting with `prefix` (one cache's whole content) leaves the accounts. */
	releaseAll(prefix: string): void {
		for (const key of [...this.held.keys()]) if (key.startsWith(prefix)) this.release(key);
	}
}
