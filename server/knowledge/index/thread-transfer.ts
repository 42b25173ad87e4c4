/**
 * Helpers for structures built on an index-builder thread (index-builder-pool.ts) and handed to
 * the API's thread: typed arrays move with their buffers (transferred, never copied), strings
 * travel packed into one UTF-8 buffer, and what must be rebuilt on arrival is rebuilt in slices
 * that yield to the event loop.
 */

/** PostgreSQL text never contains NUL, so it separates ids, versions and lexemes unambiguously. */
const SEPARATOR = "\u0000";

/** Strings read from PostgreSQL as one transferable buffer (see unpackStrings). */
export interface PackedStrings {
	count: number;
	bytes: Uint8Array<ArrayBuffer>;
}

export function packStrings(strings: readonly string[]): PackedStrings {
	// A buffer of its own (not Buffer's shared pool, which must never be transferred).
	return { count: strings.length, bytes: new TextEncoder().encode(strings.join(SEPARATOR)) };
}

/** One decode and one split: a few milliseconds for 100k chunk ids, however many strings. */
export function unpackStrings(packed: PackedStrings): string[] {
	return packed.count === 0 ? [] : new TextDecoder().decode(packed.bytes).split(SEPARATOR);
}

/** The buffers of typed arrays, deduplicated, for postMessage's transfer list. */
export function buffersOf(...arrays: ArrayBufferView[]): ArrayBuffer[] {
	const buffers = new Set<ArrayBuffer>();
	for (const array of arrays) if (array.buffer instanceof ArrayBuffer) buffers.add(array.buffer);
	return [...buffers];
}

/** Longest stretch of work between two turns of the event loop. */
const SLICE_MS = 8;

/**
 * Calls `visit(0 … count - 1)` in order, yielding to the event loop every few milliseconds: for
 * the per-item work left on the API's thread after a build (a vocabulary's lookup map), which
 * grows with the source and must not hold other requests up.
 */
export async function inSlices(count: number, visit: (index: number) => void): Promise<void> {
	let sliceStarted = performance.now();
	for (let index = 0; index < count; index++) {
		visit(index);
		if ((index & 1023) === 1023 && performance.now() - sliceStarted > SLICE_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			sliceStarted = performance.now();
		}
	}
}
