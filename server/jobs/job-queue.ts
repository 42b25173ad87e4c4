import type { EntityManager } from "@mikro-orm/postgresql";
import PgBoss from "pg-boss";
import { rawConnection } from "../db/raw-connection";
import type { Logger } from "../shared/logger";

/** pg-boss keeps its tables in a schema of its own in the platform's database. */
export const JOB_SCHEMA = "pgboss";

export async function startJobQueue(databaseUrl: string, logger: Logger, options: { supervise?: boolean } = {}): Promise<PgBoss> {
	const boss = new PgBoss({
		connectionString: databaseUrl,
		schema: JOB_SCHEMA,
		max: 4,
		// Cron scheduling is unused: the orphan sweeper runs on an interval guarded by an advisory lock.
		schedule: false,
		supervise: options.supervise ?? true,
	});
	boss.on("error", (error) => logger.error("job queue error", { error }));
	await boss.start();
	return boss;
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
