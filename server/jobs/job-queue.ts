import type { EntityManager } from "@mikro-orm/postgresql";
import PgBoss from "pg-boss";
import type { z } from "zod";
import { rawConnection } from "../db/raw-connection";
import type { Logger } from "../shared/logger";

/** pg-boss keeps its tables in a schema of its own in the platform's database. */
export const JOB_SCHEMA = "pgboss";

/** A queue as its owning module defines it: a name and the payload's schema. */
export interface JobDefinition<TPayload> {
	readonly name: string;
	readonly payload: z.ZodType<TPayload>;
}

/**
 * The process's one pg-boss, for every queue (ingestion now, evaluations next). Queues are
 * declared by the modules that own them (`declare`), jobs are sent inside the caller's
 * transaction (`sendInTransaction`), and `wake` saves an idle worker of this process its polling
 * interval after a commit that enqueued.
 */
export class JobQueue {
	private readonly workerIds = new Map<string, string[]>();

	private constructor(readonly boss: PgBoss) {}

	/** `supervise`: run pg-boss's maintenance (expiry, archiving) from this process; off for one-shot commands. */
	static async start(databaseUrl: string, logger: Logger, options: { supervise: boolean }): Promise<JobQueue> {
		const boss = new PgBoss({
			connectionString: databaseUrl,
			schema: JOB_SCHEMA,
			max: 4,
			// Cron scheduling is unused: the orphan sweeper runs on an interval guarded by an advisory lock.
			schedule: false,
			supervise: options.supervise,
		});
		boss.on("error", (error) => logger.error("job queue error", { error }));
		await boss.start();
		return new JobQueue(boss);
	}

	/** Creates the queue (idempotent), with its retry and expiry options. */
	async declare(definition: JobDefinition<unknown>, options: Omit<PgBoss.Queue, "name">): Promise<void> {
		await this.boss.createQueue(definition.name, { name: definition.name, ...options });
	}

	/**
	 * Enqueues inside the caller's transaction (tx must be inside em.transactional): the job exists
	 * if and only if the state change that calls for it commits.
	 */
	async sendInTransaction<TPayload>(definition: JobDefinition<TPayload>, tx: EntityManager, payload: TPayload, options: PgBoss.SendOptions = {}): Promise<void> {
		const id = await this.boss.send(definition.name, definition.payload.parse(payload) as object, { ...options, db: await transactionDb(tx) });
		// pg-boss 10 returns null instead of failing when the queue is missing (TOOLCHAIN.md).
		if (id === null) throw new Error(`Queue ${definition.name} refused the job`);
	}

	/** Runs `handle` for each job of the queue, `concurrency` at a time in this process. */
	async work<TPayload>(
		definition: JobDefinition<TPayload>,
		options: { concurrency: number; pollingIntervalSeconds: number },
		handle: (payload: TPayload, job: PgBoss.Job<unknown>) => Promise<void>,
	): Promise<void> {
		const ids = this.workerIds.get(definition.name) ?? [];
		for (let slot = 0; slot < options.concurrency; slot++) {
			ids.push(
				await this.boss.work(definition.name, { batchSize: 1, pollingIntervalSeconds: options.pollingIntervalSeconds }, async (jobs) => {
					for (const job of jobs) await handle(definition.payload.parse(job.data), job);
				}),
			);
		}
		this.workerIds.set(definition.name, ids);
	}

	/** Wakes this process's idle workers of the queue (none when this process does not work it). */
	wake(definition: JobDefinition<unknown>): void {
		for (const id of this.workerIds.get(definition.name) ?? []) this.boss.notifyWorker(id);
	}

	/** Graceful: running jobs finish (or time out) before the database goes away. */
	async stop(): Promise<void> {
		await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
	}
}

/**
 * pg-boss's `db` option over the connection of the MikroORM transaction `tx`, so a job is written
 * in the same transaction as the state change that calls for it: rolled back together, committed
 * together. pg-boss sends `$1` placeholders, which em.execute (MikroORM formats `?` itself) does not take.
 */
export async function transactionDb(tx: EntityManager): Promise<PgBoss.Db> {
	const connection = await rawConnection(tx);
	return { executeSql: (text, values) => connection.query(text, values) };
}
