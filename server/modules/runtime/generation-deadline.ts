import { Cancellation } from "../../providers/cancellation";
import { ProviderError } from "../../providers/provider-error";

/** First retry waits about this long; each later one doubles, up to MAX_BACKOFF_MS. */
const INITIAL_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;

/**
 * Tells a generation that its caller went away, without an AbortSignal (providers/cancellation.ts
 * says why).
 * `onGone` returns a function that stops listening.
 */
export interface CallerPresence {
	onGone(listener: () => void): () => void;
}

/**
 * One generation's time budget and cancellation: a single Cancellation that fires when the
 * whole-generation timeout (retries included, per contract GenerationConfig.timeoutMs) runs out or
 * when our own caller goes away. Every upstream attempt and every backoff sleep listens to it.
 */
export class GenerationDeadline {
	private readonly cancellation = new Cancellation();
	private readonly timer: NodeJS.Timeout;
	private readonly expiresAt: number;
	private expired = false;
	private serverStopping = false;
	private readonly stopWatchingCaller: (() => void) | undefined;

	constructor(
		private readonly timeoutMs: number,
		caller?: CallerPresence,
	) {
		this.expiresAt = Date.now() + timeoutMs;
		this.timer = setTimeout(() => {
			this.expired = true;
			this.cancellation.abort(new Error("generation timeout"));
		}, timeoutMs);
		this.stopWatchingCaller = caller?.onGone(() => this.cancellation.abort(new Error("caller went away")));
	}

	get signal(): Cancellation {
		return this.cancellation;
	}

	remainingMs(): number {
		return Math.max(0, this.expiresAt - Date.now());
	}

	/** The server is stopping and its grace period is over (RunningGenerations.stopAll). */
	stopForShutdown(): void {
		this.serverStopping = true;
		this.cancellation.abort(new Error("server stopping"));
	}

	/**
	 * An abort caused by our deadline is the generation timing out, whatever the SDK called it; one
	 * caused by the server stopping is a retryable 503, which another instance can serve.
	 */
	explain(error: ProviderError): ProviderError {
		if (this.serverStopping && error.kind === "aborted") {
			return new ProviderError("unavailable", error.providerName, "This server is stopping and ended the generation before it finished; retry the request", {
				cause: error,
				retryable: true,
			});
		}
		if (this.expired && (error.kind === "aborted" || error.kind === "timeout" || error.kind === "unavailable")) {
			return new ProviderError("timeout", error.providerName, `The generation exceeded its ${this.timeoutMs} ms timeout (config.timeoutMs)`, { cause: error });
		}
		return error;
	}

	/**
	 * How long to wait before attempt `retry` (1-based), or undefined when we must not retry:
	 * jittered exponential backoff (50-100% of the step, so concurrent callers spread out), never
	 * shorter than the provider's Retry-After, and never past the deadline.
	 */
	retryDelay(error: ProviderError, retry: number, maxRetries: number): number | undefined {
		if (!error.retryable || retry > maxRetries || this.signal.aborted) return undefined;
		const step = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** (retry - 1));
		const delay = Math.max(step * (0.5 + Math.random() * 0.5), error.retryAfterMs ?? 0);
		return delay < this.remainingMs() ? delay : undefined;
	}

	sleep(milliseconds: number): Promise<void> {
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				stopListening();
				resolve();
			};
			const timer = setTimeout(done, milliseconds);
			const stopListening = this.cancellation.onAbort(done);
		});
	}

	/** Closes an upstream request still open, e.g. a stream whose reader stopped early. */
	cancel(): void {
		this.cancellation.abort(new Error("generation cancelled"));
	}

	/**
	 * Stops the timer. It does not abort: after a complete answer there is nothing to close, and
	 * creating the abort event on every request is measurable in the benchmark.
	 */
	dispose(): void {
		clearTimeout(this.timer);
		this.stopWatchingCaller?.();
	}
}
