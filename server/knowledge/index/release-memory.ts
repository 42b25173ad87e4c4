/**
 * Asks V8 for a major garbage collection, run concurrently with the event loop, after this
 * thread let go of a large search structure (an exact vector matrix replaced by its HNSW graph:
 * 2 GB at a million chunks; a lexicon replaced by a newer generation; a source evicted). Typed
 * arrays' memory goes back to the system only when a major collection finds them unreachable,
 * and a thread that allocates little afterwards may not run one for a long time: the process
 * would keep the dropped structure's memory. Only when the process runs with `--expose-gc` (as
 * `npm start` runs the server); otherwise V8 decides when.
 */
export function collectDroppedStructures(): void {
	const gc = (globalThis as { gc?: (options: { type: "major"; execution: "async" }) => Promise<void> | void }).gc;
	void gc?.({ type: "major", execution: "async" });
}
