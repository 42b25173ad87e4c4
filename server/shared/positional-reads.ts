import { read, readSync } from "node:fs";

/** `into.length` bytes at `position` of an open file. */
export interface PositionalRead {
	descriptor: number;
	into: Uint8Array;
	position: number;
}

/**
 * Reads a step of sliced work waits for (time-slices.ts): the runner makes them, at once when the
 * work runs to the end, on libuv's thread pool when it runs in slices of the event loop.
 */
export class FileReads {
	constructor(readonly reads: readonly PositionalRead[]) {}
}

/** Reads `bytes.length` bytes at `position`, however many reads it takes; a file shorter than that is an error. */
export function readFully(descriptor: number, bytes: Uint8Array, position: number): void {
	for (let done = 0; done < bytes.length; ) {
		const count = readSync(descriptor, bytes, done, bytes.length - done, position + done);
		if (count === 0) throw new Error("An index file ended early");
		done += count;
	}
}

/** Makes `reads` here and now. */
export function readNow(reads: FileReads): void {
	for (const { descriptor, into, position } of reads.reads) readFully(descriptor, into, position);
}

/**
 * Makes `reads` on libuv's thread pool, together. A read that misses the page cache (a host that
 * pages out idle file cache, as this machine's does after a minute) waits for the disk there, and
 * the pages of a destination buffer not touched yet are faulted in there too, not on the event
 * loop: both took tens of milliseconds of the API's thread at a million chunks.
 */
export async function readOffLoop(reads: FileReads): Promise<void> {
	await Promise.all(reads.reads.map(({ descriptor, into, position }) => readFullyOffLoop(descriptor, into, position)));
}

async function readFullyOffLoop(descriptor: number, bytes: Uint8Array, position: number): Promise<void> {
	for (let done = 0; done < bytes.length; ) {
		const count = await new Promise<number>((resolve, reject) => {
			read(descriptor, bytes, done, bytes.length - done, position + done, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead)));
		});
		if (count === 0) throw new Error("An index file ended early");
		done += count;
	}
}
