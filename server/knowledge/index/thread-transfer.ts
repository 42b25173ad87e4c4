/**
 * Helpers for structures built on an index-builder thread (index-builder-pool.ts) and handed to
 * the API's thread: typed arrays move with their buffers (transferred, never copied), strings
 * travel packed into one UTF-8 buffer, and what must be rebuilt on arrival is rebuilt in slices
 * that yield to the event loop.
 */

import { runToEnd, type Steps } from "../../shared/time-slices";

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

/**
 * Where each string of `packed` starts in its bytes, one entry more than strings (past the end plus
 * the separator's byte): string i is bytes [starts[i], starts[i + 1] - 1), so a few of many
 * strings are decoded without decoding them all (see PackedStringTable).
 */
export function stringStarts(packed: PackedStrings): Uint32Array<ArrayBuffer> {
	const starts = new Uint32Array(packed.count + 1);
	// A Buffer view: its indexOf is memchr, several times a typed array's.
	const bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.length);
	for (let index = 1, at = bytes.indexOf(0); at >= 0 && index < packed.count; at = bytes.indexOf(0, at + 1)) starts[index++] = at + 1;
	starts[packed.count] = bytes.length + 1;
	return starts;
}

/**
 * Strings by index, most of them as they arrived from a thread or a file (packed, with
 * stringStarts' offsets) and decoded one at a time when asked for; strings added later are kept
 * as they are. A million chunk ids stay one buffer of ~30 MB instead of a million strings, and
 * adopting them costs nothing on the API's thread.
 */
export class PackedStringTable {
	private readonly appended: string[] = [];
	private appendedBytes = 0;
	private readonly decoder = new TextDecoder();

	/** `readPacked`: the packed strings' bytes are not in `packed.bytes` (only their count and starts are) but read by it (from a file), [start, end) of them each. */
	constructor(
		private readonly packed: PackedStrings = { count: 0, bytes: new Uint8Array(0) },
		private readonly starts: Uint32Array<ArrayBuffer> = stringStarts(packed),
		private readonly readPacked?: (ranges: readonly { start: number; end: number }[]) => Steps<string[]>,
	) {}

	get count(): number {
		return this.packed.count + this.appended.length;
	}

	at(index: number): string {
		const { count } = this.packed;
		if (index >= count) return this.appended[index - count];
		const range = this.rangeOf(index);
		return this.readPacked ? runToEnd(this.readPacked([range]))[0] : this.decoder.decode(this.packed.bytes.subarray(range.start, range.end));
	}

	/** The strings at `indexes`; those in a file are read together, in a step of their own. */
	*atSteps(indexes: readonly number[]): Steps<string[]> {
		const { readPacked } = this;
		if (!readPacked) return indexes.map((index) => this.at(index));
		const { count } = this.packed;
		const strings = indexes.map((index) => (index >= count ? this.appended[index - count] : ""));
		const inFile = indexes.flatMap((index, at) => (index < count ? [at] : []));
		const read = yield* readPacked(inFile.map((at) => this.rangeOf(indexes[at])));
		inFile.forEach((at, position) => (strings[at] = read[position]));
		return strings;
	}

	/** Packed string `index`'s bytes (its separator left out). */
	private rangeOf(index: number): { start: number; end: number } {
		return { start: this.starts[index], end: this.starts[index + 1] - 1 };
	}

	/** Adds a string; returns its index. */
	add(value: string): number {
		this.appended.push(value);
		this.appendedBytes += 16 + value.length;
		return this.count - 1;
	}

	/** Approximate bytes held. */
	get byteLength(): number {
		return this.packed.bytes.byteLength + this.starts.byteLength + this.appendedBytes;
	}
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

/**
 * Items [0, count) grouped by `groupOf[item]` (a group's index in `names`, -1 for none), each
 * group's items ascending in a view of one typed array, grouped by counting, in slices of the
 * event loop: a million items pushed into per-group JavaScript arrays were megabytes of the API's
 * heap, which its collector copied into new pages at every load and marked again at every
 * mark-compact (pauses of 40-60 ms on a machine where a fresh page is slow).
 */
export async function groupedByCounting(count: number, groupOf: Int32Array, names: string[]): Promise<Map<string, Int32Array>> {
	const starts = new Int32Array(names.length + 1);
	await inSlices(count, (item) => {
		if (groupOf[item] >= 0) starts[groupOf[item] + 1]++;
	});
	for (let index = 1; index < starts.length; index++) starts[index] += starts[index - 1];
	const inGroupOrder = new Int32Array(starts[names.length]);
	const next = starts.slice(0, names.length);
	await inSlices(count, (item) => {
		if (groupOf[item] >= 0) inGroupOrder[next[groupOf[item]]++] = item;
	});
	const groups = new Map<string, Int32Array>();
	for (let index = 0; index < names.length; index++) {
		if (starts[index + 1] > starts[index]) groups.set(names[index], inGroupOrder.subarray(starts[index], starts[index + 1]));
	}
	return groups;
}
