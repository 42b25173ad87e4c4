/**
 * Giving typed arrays' memory back to the system now, instead of at V8's next major collection:
 * a thread that allocates little after letting go of a large structure (an exact vector matrix
 * replaced by its HNSW graph: 2 GB at a million chunks) may not run one for minutes, and forcing
 * one is a pause of the event loop that grows with the heap (90 ms at 100k chunks).
 */

/**
 * The buffers of `arrays` that can be given back: those an array spans whole, once each. Only for
 * arrays nothing will read again; a view that does not span its whole buffer is left to the
 * collector (the buffer may hold other arrays).
 */
export function releasableBuffers(arrays: ArrayBufferView[]): ArrayBuffer[] {
	const buffers = new Set<ArrayBuffer>();
	for (const array of arrays) {
		const { buffer } = array;
		if (buffer instanceof ArrayBuffer && array.byteOffset === 0 && array.byteLength === buffer.byteLength && buffer.byteLength > 0) buffers.add(buffer);
	}
	return [...buffers];
}

/**
 * Gives `buffers` back to the system from this thread: they are transferred to a message channel
 * that is closed at once, which detaches them here (every view of them reads as empty from then
 * on) and drops the memory with the undelivered message. Freeing is the kernel unmapping every
 * page: 130 ms for the 2 GB matrix of a million chunks, so the API's thread hands such buffers to
 * an index-builder thread to free (IndexBuilderPool.release, task "release-buffers").
 */
export function releaseBuffers(buffers: ArrayBuffer[]): void {
	if (buffers.length === 0) return;
	const { port1, port2 } = new MessageChannel();
	port1.postMessage(null, buffers);
	port1.close();
	port2.close();
}

/** Where buffers nothing will read again go to be freed: this thread (releaseBuffers) or another. */
export type BufferReleaser = (buffers: ArrayBuffer[]) => void;
