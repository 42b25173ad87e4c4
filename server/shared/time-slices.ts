import { setImmediate as nextTurn } from "node:timers/promises";
import { FileReads, readNow, readOffLoop } from "./positional-reads";

/**
 * Work written as a generator that yields wherever it may pause (between windows of a ranking,
 * between posting lists) and returns its result. The same code runs to the end at once
 * (runToEnd: tests, benchmarks) or in slices of the event loop (runInSlices). A step that needs
 * bytes of a file yields the reads (FileReads) and finds them made when it goes on: at once
 * (runToEnd), or off the event loop (runInSlices), so a read the page cache cannot answer holds
 * no other request; a read that fails is thrown where the step yielded.
 */
export type Steps<T> = Generator<void | FileReads, T, void>;

/** Runs `steps` to the end without pausing. */
export function runToEnd<T>(steps: Steps<T>): T {
	let step = steps.next();
	while (!step.done) {
		let failure: { error: unknown } | null = null;
		try {
			if (step.value) readNow(step.value);
		} catch (error) {
			failure = { error };
		}
		step = failure ? steps.throw(failure.error) : steps.next();
	}
	return step.value;
}

export interface SliceOptions {
	/** The longest the work runs before other callbacks get the loop (checked at each yield). */
	sliceMs: number;
	/**
	 * A count that moves whenever what the work reads changes. If it moved while the work was
	 * paused, the work starts again from the beginning (`start()` anew), so its result is always
	 * that of one consistent state.
	 */
	version?: () => number;
}

/**
 * Starts after which work runs its last start to the end without pausing: under changes arriving
 * at every pause (a busy source refreshed by every other search) it would otherwise never end.
 */
const RESTARTS_BEFORE_RUNNING_THROUGH = 2;

/**
 * Runs the work `start()` makes on the event loop, giving the loop back whenever a slice of
 * `sliceMs` is used up: a request, a health check or another tenant's call waits at most one
 * slice behind it, however long the work is. Work that ends within its first slice never pauses.
 */
export async function runInSlices<T>(start: () => Steps<T>, options: SliceOptions): Promise<T> {
	const version = options.version ?? (() => 0);
	for (let restarts = 0; ; restarts++) {
		const startedAt = version();
		const steps = start();
		if (restarts === RESTARTS_BEFORE_RUNNING_THROUGH) return runToEnd(steps);
		let sliceStart = performance.now();
		let step = steps.next();
		for (;;) {
			if (step.done) return step.value;
			if (step.value) {
				const failure = await readOffLoop(step.value).then(
					() => null,
					(error: unknown) => ({ error }),
				);
				if (failure) {
					step = steps.throw(failure.error);
					continue;
				}
			} else if (performance.now() - sliceStart < options.sliceMs) {
				step = steps.next();
				continue;
			} else await nextTurn();
			if (version() !== startedAt) {
				// Given up: its `finally` blocks run (scratch left as it was found).
				steps.return(undefined as T);
				break;
			}
			sliceStart = performance.now();
			step = steps.next();
		}
	}
}

/**
 * Work that takes turns (one at a time, in the order asked), each run in slices: what shares
 * scratch (a lexicon's rankings) queues here. A piece of work that had to wait starts in a turn of
 * the loop of its own, so a queue of short ones does not run back to back past a slice.
 */
export class SlicedTurns {
	private last: Promise<unknown> = Promise.resolve();
	private queued = 0;

	run<T>(start: () => Steps<T>, options: SliceOptions): Promise<T> {
		const waits = this.queued > 0;
		this.queued++;
		const run = this.last
			.then(async () => {
				if (waits) await nextTurn();
				return runInSlices(start, options);
			})
			.finally(() => {
				this.queued--;
			});
		this.last = run.catch(() => undefined);
		return run;
	}
}
