import type { McpToolListCache } from "./tool-kind";

const MAX_ENTRIES = 1000;

/**
 * MCP servers' tool lists per process, each kept for `ttlMs` (then read again on next use);
 * concurrent first uses share one read, a failed read is not kept. One per platform (composition root).
 */
export class ToolListCache implements McpToolListCache {
	private readonly entries = new Map<string, { expiresAt: number; value: Promise<unknown> }>();

	constructor(private readonly ttlMs: number) {}

	get<T>(key: string, load: () => Promise<T>): Promise<T> {
		const now = Date.now();
		const entry = this.entries.get(key);
		if (entry && entry.expiresAt > now) return entry.value as Promise<T>;
		if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
		const value = load();
		this.entries.set(key, { expiresAt: now + this.ttlMs, value });
		value.catch(() => {
			if (this.entries.get(key)?.value === value) this.entries.delete(key);
		});
		return value;
	}
}
