/** A generation the server can end early: told so, it stops and answers a retryable error. */
export interface StoppableGeneration {
	stopForShutdown(): void;
}

/**
 * The generations this process is running, for a shutdown that loses none of them: the server
 * stops them once its grace period is over (each then ends with a retryable error its caller can
 * act on, rather than a cut connection), and the trace writer's last flush waits until every one
 * has recorded its trace. On the hot path: a counter and a Set of plain objects (no closures).
 */
export class RunningGenerations {
	private running = 0;
	private stopped = false;
	private readonly stoppable = new Set<StoppableGeneration>();
	private readonly idleListeners: (() => void)[] = [];

	/**
	 * A generation begins; `leave` it once it has recorded its trace. A `stoppable` one is stopped
	 * if the server stops first (at once when it already has); without one, the generation is only
	 * waited for (an evaluation case, a tool call).
	 */
	enter(stoppable?: StoppableGeneration): void {
		this.running += 1;
		if (!stoppable) return;
		if (this.stopped) stoppable.stopForShutdown();
		else this.stoppable.add(stoppable);
	}

	leave(stoppable?: StoppableGeneration): void {
		if (stoppable) this.stoppable.delete(stoppable);
		this.running -= 1;
		if (this.running === 0 && this.idleListeners.length > 0) for (const wake of this.idleListeners.splice(0)) wake();
	}

	/** Stops every stoppable generation running, and any begun from now on. */
	stopAll(): void {
		this.stopped = true;
		for (const generation of [...this.stoppable]) generation.stopForShutdown();
		this.stoppable.clear();
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
