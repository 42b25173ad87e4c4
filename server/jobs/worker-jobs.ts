/** What a worker process (`npm run worker`) can run: WORKER_JOBS lists some of these. */
export const WORKER_JOBS = ["ingestion", "evaluations"] as const;
export type WorkerJob = (typeof WORKER_JOBS)[number];
