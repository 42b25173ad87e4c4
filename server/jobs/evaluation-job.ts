import { z } from "zod";
import type { JobDefinition, JobQueue } from "./job-queue";

export const ZEvaluationJob = z.object({ runId: z.string() });
export type EvaluationJob = z.infer<typeof ZEvaluationJob>;

/** One job per run; a run's progress lives in its rows, so any number of jobs for it are safe (the lease lets one work). */
export const EVALUATION_JOB: JobDefinition<EvaluationJob> = { name: "evaluation-run", payload: ZEvaluationJob };

/** How a process works evaluation runs (EVALUATION_* settings). */
export interface EvaluationOptions {
	/** `inline`: the server also works runs; `off`: only `npm run worker` processes do. */
	worker: "inline" | "off";
	/** Runs one process works at once (each generates `concurrency` cases at a time). */
	workerConcurrency: number;
	/** A worker renews its claim on a run this often (a third of it); a claim not renewed for this long is taken over. */
	leaseSeconds: number;
	pollIntervalSeconds: number;
}

export const DEFAULT_EVALUATION_OPTIONS: EvaluationOptions = { worker: "inline", workerConcurrency: 2, leaseSeconds: 30, pollIntervalSeconds: 0.5 };

export async function declareEvaluationQueue(jobs: JobQueue, options: Pick<EvaluationOptions, "leaseSeconds">): Promise<void> {
	await jobs.declare(EVALUATION_JOB, {
		// A failed attempt releases its lease, so the retry resumes at once, skipping finished cases;
		// a worker that vanished is noticed by the sweeper through its lapsed lease, not by job expiry.
		retryLimit: 3,
		retryDelay: 2,
		expireInSeconds: Math.max(600, options.leaseSeconds * 4),
	});
}
