import { claimNextEvaluationRun, type RunClaim, workClaimedRun } from "../modules/evaluations/process-evaluation-run";
import type { PlatformServices } from "../modules/platform-services";
import type { Logger } from "../shared/logger";
import { EVALUATION_JOB, type EvaluationOptions } from "./evaluation-job";

/** How long a stopping process lets its runs go on before giving up their leases (README, Stopping). */
const STOP_GRACE_MS = 10_000;

/**
 * Works evaluation runs in this process, `workerConcurrency` at a time, choosing each by the fair
 * rule (claimNextEvaluationRun) rather than in arrival order: a workspace runs at most
 * `runsPerWorkspace` runs at once across every process, and workspaces take turns for the
 * workers, so one tenant's long or slow queue never keeps another's run waiting behind all of it.
 * The runs' table is the queue: a free slot claims the next run, looking again at once when a
 * run ends or one is started (a job on the evaluation queue wakes it), and every polling interval
 * otherwise, which is also how runs whose worker died (lease lapsed) are taken over.
 */
export class EvaluationScheduler {
	private readonly running = new Set<Promise<void>>();
	private readonly release = new AbortController();
	private stopping = false;
	private woken = false;
	private wakeUp?: () => void;
	private loop?: Promise<void>;

	constructor(
		private readonly services: PlatformServices,
		private readonly options: EvaluationOptions,
		private readonly logger: Logger,
	) {}

	start(): void {
		this.loop ??= this.schedule();
	}

	/** Looks for a run to claim now rather than at the next poll. */
	wake(): void {
		this.woken = true;
		this.wakeUp?.();
	}

	/**
	 * Claims no more runs and lets the running ones finish for up to `graceMs`; those still running
	 * then give up their leases, so another worker resumes them at once (their cases in flight may
	 * still save their results, once).
	 */
	async stop(graceMs = STOP_GRACE_MS): Promise<void> {
		this.stopping = true;
		this.wakeUp?.();
		await this.loop;
		let timer: NodeJS.Timeout | undefined;
		const graceOver = new Promise<"grace over">((resolve) => {
			timer = setTimeout(() => resolve("grace over"), graceMs);
		});
		const outcome = await Promise.race([Promise.allSettled(this.running).then(() => "done" as const), graceOver]);
		clearTimeout(timer);
		if (outcome === "done") return;
		this.logger.warn("evaluation runs still running at shutdown gave up their leases, for another worker to resume", { count: this.running.size });
		this.release.abort();
	}

	private async schedule(): Promise<void> {
		while (!this.stopping) {
			if (this.running.size >= this.options.workerConcurrency) {
				await Promise.race([...this.running, this.nextWake()]);
				continue;
			}
			this.woken = false;
			let claim: RunClaim | null = null;
			try {
				claim = await claimNextEvaluationRun(this.services, this.options);
			} catch (error) {
				this.logger.error("could not claim an evaluation run", { error });
			}
			if (claim) {
				if (this.stopping) await this.giveBack(claim);
				else this.launch(claim);
				continue;
			}
			if (!this.woken) await this.idle();
		}
	}

	/** The polling interval, cut short by wake() or stop(). */
	private idle(): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => done(), this.options.pollIntervalSeconds * 1000);
			const done = () => {
				clearTimeout(timer);
				this.wakeUp = undefined;
				resolve();
			};
			this.wakeUp = done;
		});
	}

	/** Resolves on the next wake() (or stop()). */
	private nextWake(): Promise<void> {
		return new Promise((resolve) => {
			this.wakeUp = () => {
				this.wakeUp = undefined;
				resolve();
			};
		});
	}

	private launch(claim: RunClaim): void {
		const task: Promise<void> = workClaimedRun(this.services, claim, { leaseSeconds: this.options.leaseSeconds, logger: this.logger, release: this.release.signal })
			.then((outcome) => {
				this.logger.debug("evaluation run attempt ended", { runId: claim.runId, attempt: claim.attempt, outcome });
				if (outcome === "completed" || outcome === "failed" || outcome === "cancelled") this.services.observability.metrics.recordEvaluationRun(outcome);
			})
			.catch(() => {
				// Logged by workClaimedRun; the run is claimed again after its retry delay.
			})
			.finally(() => {
				this.running.delete(task);
				// A slot freed, and the run's workspace may now start another.
				this.wake();
			});
		this.running.add(task);
	}

	/** A run claimed as the process began to stop goes back at once. */
	private async giveBack(claim: RunClaim): Promise<void> {
		await this.services.orm.em
			.fork()
			.getConnection()
			.execute("update evaluation_runs set lease_token = null, lease_expires_at = null where id = ? and lease_token = ?", [claim.runId, claim.token])
			.catch((error: unknown) => this.logger.warn("could not give back an evaluation run; its lease lapses instead", { runId: claim.runId, error }));
	}
}

/**
 * Works evaluation runs in this process (EvaluationScheduler). The evaluation queue's jobs only
 * wake it: one is sent in the transaction that starts a run, so a process with a free slot
 * claims the run at once instead of at its next poll.
 */
export function startEvaluationWorker(services: PlatformServices, options: EvaluationOptions, logger: Logger): { stop(): Promise<void> } {
	const scheduler = new EvaluationScheduler(services, options, logger);
	scheduler.start();
	services.jobs.work(EVALUATION_JOB, { concurrency: 1, pollingIntervalSeconds: options.pollIntervalSeconds }, async () => scheduler.wake());
	return { stop: () => scheduler.stop() };
}
