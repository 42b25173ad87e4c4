import type PgBoss from "pg-boss";
import type { Logger } from "../shared/logger";
import type { JobDefinition } from "./job-queue";

export interface DispatchOptions {
	/** Jobs of the queue this process runs at once. */
	concurrency: number;
	/** How long an idle dispatcher waits before looking again (a wake ends the wait early). */
	pollingIntervalSeconds: number;
}

/**
 * Keeps up to `concurrency` jobs of one queue running in this process. pg-boss 10's own worker
 * waits out its polling interval (0.5 s at least) after every fetch, even one that found jobs, so
 * one-document jobs ran at two per second per slot whatever the machine could do (4.8 documents a
 * second with two slots). This one fetches as many jobs as it has free slots as soon as one
 * frees, and waits for the interval (or a wake) only when the queue had nothing left. It fetches
 * only what it can start, so jobs leave the queue in pg-boss's order (priority, then age) across
 * every process, and the queue's priorities (fairness across sources) hold.
 */
export class JobDispatcher<TPayload> {
	/** Running jobs' promises, with their job ids. */
	private readonly running = new Map<Promise<void>, string>();
	private stopping = false;
	private woken = false;
	private wakeUp?: () => void;
	private loop?: Promise<void>;

	constructor(
		private readonly boss: PgBoss,
		private readonly definition: JobDefinition<TPayload>,
		private readonly options: DispatchOptions,
		private readonly handle: (payload: TPayload, job: PgBoss.Job<unknown>) => Promise<void>,
		private readonly logger: Logger,
	) {}

	start(): void {
		this.loop ??= this.dispatch();
	}

	/** Ends an idle wait at once: a job was just enqueued. */
	wake(): void {
		this.woken = true;
		this.wakeUp?.();
	}

	/**
	 * Stops fetching and waits up to `timeoutMs` for running jobs; those still running then are
	 * failed, as pg-boss's own shutdown does (the queue's retry runs them again elsewhere).
	 */
	async stop(timeoutMs: number): Promise<void> {
		this.stopping = true;
		this.wakeUp?.();
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<"timeout">((resolve) => {
			timer = setTimeout(() => resolve("timeout"), timeoutMs);
		});
		const finished = (async () => {
			await this.loop;
			await Promise.allSettled(this.running.keys());
			return "done" as const;
		})();
		const outcome = await Promise.race([finished, timedOut]);
		clearTimeout(timer);
		if (outcome === "done" || this.running.size === 0) return;
		const ids = [...this.running.values()];
		this.logger.warn("jobs still running at shutdown were failed", { queue: this.definition.name, count: ids.length });
		for (const id of ids) await this.boss.fail(this.definition.name, id, { message: "the process shut down while the job ran" }).catch(() => {});
	}

	private async dispatch(): Promise<void> {
		while (!this.stopping) {
			const free = this.options.concurrency - this.running.size;
			if (free === 0) {
				await Promise.race(this.running.keys());
				continue;
			}
			this.woken = false;
			let jobs: PgBoss.Job<unknown>[] = [];
			try {
				jobs = await this.boss.fetch(this.definition.name, { batchSize: free });
			} catch (error) {
				this.logger.error("job fetch failed", { queue: this.definition.name, error });
			}
			for (const job of jobs) this.launch(job);
			// A full batch says more may be waiting: look again as soon as a slot frees.
			if (jobs.length === free || this.woken) continue;
			await this.idle();
		}
	}

	/** The polling interval, cut short by a wake or by stop(). */
	private idle(): Promise<void> {
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				this.wakeUp = undefined;
				resolve();
			};
			const timer = setTimeout(done, this.options.pollingIntervalSeconds * 1000);
			this.wakeUp = done;
		});
	}

	private launch(job: PgBoss.Job<unknown>): void {
		const task: Promise<void> = this.run(job).finally(() => this.running.delete(task));
		this.running.set(task, job.id);
	}

	/** As pg-boss's worker does: completed on success, failed (retried within the queue's limit) on an exception or past its expiry. */
	private async run(job: PgBoss.Job<unknown>): Promise<void> {
		const { name } = this.definition;
		try {
			await withinSeconds(this.handle(this.definition.payload.parse(job.data), job), Number((job as { expireInSeconds?: number }).expireInSeconds ?? 0));
		} catch (error) {
			this.logger.error("job failed", { queue: name, jobId: job.id, error });
			await this.boss
				.fail(name, job.id, { message: error instanceof Error ? error.message : String(error) })
				.catch((failure) => this.logger.error("could not record a job failure", { queue: name, jobId: job.id, error: failure }));
			return;
		}
		await this.boss.complete(name, job.id).catch((error) => this.logger.error("could not record a job completion", { queue: name, jobId: job.id, error }));
	}
}

/** The handler's outcome, or a rejection once `seconds` pass (0: no limit); the handler itself is not stopped. */
async function withinSeconds(work: Promise<void>, seconds: number): Promise<void> {
	if (!(seconds > 0)) return work;
	let timer: NodeJS.Timeout | undefined;
	const expired = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`the handler did not finish within ${seconds} s`)), seconds * 1000);
	});
	try {
		await Promise.race([work, expired]);
	} finally {
		clearTimeout(timer);
	}
}
