import type { EntityManager } from "@mikro-orm/postgresql";
import PgBoss from "pg-boss";
import type { z } from "zod";
import { rawConnection } from "../db/raw-connection";
import type { Tracing } from "../observability/tracing-types";
import type { Logger } from "../shared/logger";
import { type DispatchOptions, JobDispatcher } from "./job-dispatcher";

/** pg-boss keeps its tables in a schema of its own in the platform's database. */
export const JOB_SCHEMA = "pgboss";

/** A queue as its owning module defines it: a name and the payload's schema. */
export interface JobDefinition<TPayload> {
	readonly name: string;
	readonly payload: z.ZodType<TPayload>;
}

/** Beside the payload in a job's data (payload schemas leave it out when they parse). */
const TRACEPARENT_FIELD = "traceparent";

/** The W3C traceparent of the span that sent the job, when tracing was on there. */
export function traceparentOf(job: PgBoss.Job<unknown>): string | undefined {
	const value = (job.data as Record<string, unknown> | null)?.[TRACEPARENT_FIELD];
	return typeof value === "string" ? value : undefined;
}

/**
 * The process's one pg-boss, for every queue (ingestion now, evaluations next). Queues are
 * declared by the modules that own them (`declare`), jobs are sent inside the caller's
 * transaction (`sendInTransaction`), run by this process's dispatchers (`work`, see
 * JobDispatcher), and `wake` saves an idle dispatcher of this process its polling interval after a
 * commit that enqueued.
 */
export class JobQueue {
	private stopped: Promise<void> | undefined;
	private readonly dispatchers = new Map<string, JobDispatcher<unknown>[]>();

	private constructor(
		readonly boss: PgBoss,
		private readonly logger: Logger,
		private readonly tracing: Tracing | null,
	) {}

	/**
	 * `supervise`: run pg-boss's maintenance (expiry, archiving) from this process; off for one-shot commands.
	 * `tracing`: jobs carry the traceparent of the span that sent them (traceparentOf), for their worker's span link.
	 */
	static async start(databaseUrl: string, logger: Logger, options: { supervise: boolean; tracing?: Tracing | null }): Promise<JobQueue> {
		const boss = new PgBoss({
			connectionString: databaseUrl,
			schema: JOB_SCHEMA,
			max: 4,
			// Cron scheduling is unused: the orphan sweeper runs on an interval guarded by an advisory lock.
			schedule: false,
			supervise: options.supervise,
			// pg-boss's own commits (fetching, completing, failing, maintenance) do not wait for the WAL
			// to reach disk: two fsyncs per job otherwise (about 4 ms each here). Jobs are created in the
			// caller's transaction, which stays synchronous; after a power loss a job whose completion
			// was lost runs again, which every handler tolerates (keyed by document and attempt).
			options: "-c synchronous_commit=off",
		} as PgBoss.ConstructorOptions);
		boss.on("error", (error) => logger.error("job queue error", { error }));
		await boss.start();
		return new JobQueue(boss, logger, options.tracing ?? null);
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
		const data = definition.payload.parse(payload) as object;
		const traceparent = this.tracing?.traceparent();
		const id = await this.boss.send(definition.name, traceparent ? { ...data, [TRACEPARENT_FIELD]: traceparent } : data, { ...options, db: await transactionDb(tx) });
		// pg-boss 10 returns null instead of failing when the queue is missing (TOOLCHAIN.md).
		if (id === null) throw new Error(`Queue ${definition.name} refused the job`);
	}

	/** Runs `handle` for each job of the queue, `concurrency` at a time in this process. */
	work<TPayload>(definition: JobDefinition<TPayload>, options: DispatchOptions, handle: (payload: TPayload, job: PgBoss.Job<unknown>) => Promise<void>): void {
		const dispatcher = new JobDispatcher(this.boss, definition, options, handle, this.logger);
		this.dispatchers.set(definition.name, [...(this.dispatchers.get(definition.name) ?? []), dispatcher as JobDispatcher<unknown>]);
		dispatcher.start();
	}

	/** Wakes this process's idle dispatchers of the queue (none when this process does not work it). */
	wake(definition: JobDefinition<unknown>): void {
		for (const dispatcher of this.dispatchers.get(definition.name) ?? []) dispatcher.wake();
	}

	/**
	 * Graceful: running jobs finish (or, after 10 s, are failed for a retry) before the database goes
	 * away. Once: later calls wait for the first (platform.ts registers it twice, for start failures
	 * and for the shutdown order).
	 */
	stop(): Promise<void> {
		this.stopped ??= this.stopGracefully();
		return this.stopped;
	}

	private async stopGracefully(): Promise<void> {
		await Promise.all([...this.dispatchers.values()].flat().map((dispatcher) => dispatcher.stop(10_000)));
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
