import type { EntityManager } from "@mikro-orm/postgresql";

/**
 * One in-memory structure per knowledge source, loaded once and shared by concurrent searches
 * (the promise is cached, not the value); dropped on invalidation (LISTEN/NOTIFY when the source's
 * chunks change) and after a failed load, so the next search tries again.
 */
export class PerSourceMemo<T> {
	private readonly entries = new Map<string, Promise<T>>();

	constructor(private readonly load: (em: EntityManager, sourceId: string) => Promise<T>) {}

	invalidate(sourceId: string): void {
		this.entries.delete(sourceId);
	}

	clear(): void {
		this.entries.clear();
	}

	protected loaded(em: EntityManager, sourceId: string): Promise<T> {
		let entry = this.entries.get(sourceId);
		if (!entry) {
			entry = this.load(em, sourceId);
			this.entries.set(sourceId, entry);
			entry.catch(() => this.entries.delete(sourceId));
		}
		return entry;
	}
}
