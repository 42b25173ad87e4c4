import { z } from "zod";
import type { JobDefinition, JobQueue } from "./job-queue";

export const ZEvaluationJob = z.object({ runId: z.string() });
export type EvaluationJob = z.infer<typeof ZEvaluationJob>;

/**
 * One job per started run, which only wakes a worker (EvaluationScheduler): the runs' table is the
 * queue, and which run goes next is the scheduler's fair choice, not the jobs' order.
 */
export const EVALUATION_JOB: JobDefinition<EvaluationJob> = { name: "evaluation-run", payload: ZEvaluationJob };

/** How a process works evaluation runs (EVALUATION_* settings). */
export interface EvaluationOptions {
	/** `inline`: the server also works runs; `off`: only `npm run worker` processes do. */
	worker: "inline" | "off";
	/** Runs one process works at once (each generates `concurrency` cases at a time). */
	workerConcurrency: number;
	/** Runs one workspace may have running at once, across every process: the rest of the workers stay free for other workspaces. */
	runsPerWorkspace: number;
	/** A worker renews its claim on a run this often (a third of it); a claim not renewed for this long is taken over. */
	leaseSeconds: number;
	/** How often a worker with a free slot looks for a run when nothing woke it (runs taken over after a crash are found this way). */
	pollIntervalSeconds: number;
}

export const DEFAULT_EVALUATION_OPTIONS: EvaluationOptions = { worker: "inline", workerConcurrency: 2, runsPerWorkspace: 1, leaseSeconds: 30, pollIntervalSeconds: 0.5 };

export async function declareEvaluationQueue(jobs: JobQueue, options: Pick<EvaluationOptions, "leaseSeconds">): Promise<void> {
	// A wake-up that fails is not worth retrying: the scheduler polls the runs anyway.
	await jobs.declare(EVALUATION_JOB, { retryLimit: 0, expireInSeconds: Math.max(60, options.leaseSeconds) });
}
