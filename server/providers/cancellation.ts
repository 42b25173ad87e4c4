import { EventEmitter } from "node:events";

/**
 * How a generation tells a provider call to stop: `aborted` and `reason` as on an AbortSignal,
 * and one `abort` event. An EventEmitter rather than an AbortController because a generation
 * needs one on every request and, under load, creating the AbortSignal and adding and removing
 * its listeners showed in the benchmark at several times this cost. undici takes an emitter as a
 * request's `signal`; an SDK that wants a real AbortSignal gets one from toAbortSignal().
 */
export class Cancellation extends EventEmitter<{ abort: [] }> {
	aborted = false;
	reason: unknown = undefined;

	abort(reason: unknown): void {
		if (this.aborted) return;
		this.aborted = true;
		this.reason = reason;
		this.emit("abort");
	}

	/** Calls `listener` once on abort (at once if already aborted); returns a function that stops listening. */
	onAbort(listener: () => void): () => void {
		if (this.aborted) {
			listener();
			return () => {};
		}
		this.once("abort", listener);
		return () => this.removeListener("abort", listener);
	}

	/** An AbortSignal that aborts with this cancellation, for SDKs (e.g. Mistral's) that take only that. */
	toAbortSignal(): AbortSignal {
		const controller = new AbortController();
		this.onAbort(() => controller.abort(this.reason));
		return controller.signal;
	}
}
