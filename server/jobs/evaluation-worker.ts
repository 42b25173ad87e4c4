import type { PlatformServices } from "../modules/platform-services";
import { processEvaluationRun, requeueAbandonedEvaluationRuns } from "../modules/evaluations/process-evaluation-run";
import type { Logger } from "../shared/logger";
import { EVALUATION_JOB, type EvaluationOptions } from "./evaluation-job";

/** Subscribes this process to evaluation runs, `workerConcurrency` runs at a time. */
export function startEvaluationWorker(services: PlatformServices, options: EvaluationOptions, logger: Logger): void {
	services.jobs.work(EVALUATION_JOB, { concurrency: options.workerConcurrency, pollingIntervalSeconds: options.pollIntervalSeconds }, async (job) => {
		const outcome = await processEvaluationRun(services, job.runId, { leaseSeconds: options.leaseSeconds, logger });
		logger.debug("evaluation job done", { runId: job.runId, outcome });
	});
}

/**
 * Every process that works jobs also looks, each half lease, for runs whose worker died (kill -9,
 * OOM, a lost host) and re-queues them; an advisory lock lets one process sweep at a time.
 */
export function startEvaluationSweeper(services: PlatformServices, options: EvaluationOptions, logger: Logger): { stop(): void } {
	let running = false;
	const timer = setInterval(
		() => {
			if (running) return;
			running = true;
			requeueAbandonedEvaluationRuns(services, options, async (tx, runId) => services.jobs.sendInTransaction(EVALUATION_JOB, tx, { runId }))
				.then((count) => {
					if (count === 0) return;
					logger.warn("re-queued evaluation runs whose worker stopped renewing its lease", { count });
					services.jobs.wake(EVALUATION_JOB);
				})
				.catch((error) => logger.error("evaluation sweep failed", { error }))
				.finally(() => {
					running = false;
				});
		},
		Math.max(250, (options.leaseSeconds * 1000) / 2),
	);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}
