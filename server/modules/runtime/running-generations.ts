/**
 * The generations this process is running, for a shutdown that loses none of them: the server
 * stops them once its grace period is over (each then ends with a retryable error its caller can
 * act on, rather than a cut connection), and the trace writer's last flush waits until every one
 * has recorded its trace.
 */
export class RunningGenerations {
	private running = 0;
	private stopped = false;
	private readonly stopListeners = new Set<() => void>();
	private readonly idleListeners: (() => void)[] = [];

	/**
	 * A generation begins; call the returned function once it has recorded its trace. `onStop` runs
	 * if the server stops it first (at once when it is already stopping); without one, the
	 * generation is only waited for (an evaluation case, a tool call).
	 */
	enter(onStop?: () => void): () => void {
		this.running += 1;
		if (onStop && this.stopped) queueMicrotask(onStop);
		else if (onStop) this.stopListeners.add(onStop);
		return () => {
			if (onStop) this.stopListeners.delete(onStop);
			this.running -= 1;
			if (this.running === 0) for (const wake of this.idleListeners.splice(0)) wake();
		};
	}

	/** Stops every generation running, and any begun from now on. */
	stopAll(): void {
		this.stopped = true;
		for (const listener of [...this.stopListeners]) listener();
		this.stopListeners.clear();
	}

	/** Resolves with true once none is running, or with false after `timeoutMs`. */
	async settled(timeoutMs: number): Promise<boolean> {
		if (this.running === 0) return true;
		let timer: NodeJS.Timeout | undefined;
		const idle = await new Promise<boolean>((resolve) => {
			this.idleListeners.push(() => resolve(true));
			timer = setTimeout(() => resolve(false), timeoutMs);
		});
		clearTimeout(timer);
		return idle;
	}

	get count(): number {
		return this.running;
	}
}
