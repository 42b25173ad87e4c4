import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { lowerSessionPriority, WORKER_APPLICATION_NAME } from "./background-sessions";
import { ENTITY_SCHEMAS } from "./entities";
import { MIGRATIONS } from "./migrations";
import type { PooledClient } from "./raw-connection";
import { withSessionLock } from "./session-locks";

export type Orm = MikroORM;

const MIGRATION_LOCK = "platform-schema-migrations";

/** `backgroundSessions`: every pooled session is background work (the ingestion worker's), lowered where it can be (background-sessions.ts). */
export function ormOptions(clientUrl: string, options: { backgroundSessions?: boolean } = {}) {
	return {
		clientUrl,
		entities: ENTITY_SCHEMAS,
		extensions: [Migrator],
		// Migrations are listed statically so they load the same way under tsx, vitest and node.
		migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
		pool: {
			min: 0,
			max: 10,
			...(options.backgroundSessions
				? { afterCreate: (connection: Parameters<typeof lowerSessionPriority>[0], done: (error: null, connection: unknown) => void) => void lowerSessionPriority(connection).then(() => done(null, connection)) }
				: {}),
		},
		...(options.backgroundSessions ? { driverOptions: { connection: { application_name: WORKER_APPLICATION_NAME } } } : {}),
		debug: false,
		allowGlobalContext: false,
		// Entities are validated at start so a schema typo fails the boot, not a request.
		discovery: { warnWhenNoEntities: true },
	};
}

/** Brings the schema up to date, and lets go of the connections. */
export async function migrateDatabase(clientUrl: string): Promise<void> {
	const orm = await openDatabase(clientUrl);
	await orm.close();
}

export async function openDatabase(clientUrl: string, options: { migrate?: boolean; backgroundSessions?: boolean } = {}): Promise<Orm> {
	const orm = await MikroORM.init(ormOptions(clientUrl, { backgroundSessions: options.backgroundSessions }));
	if (options.migrate !== false) {
		try {
			await migrateOneAtATime(orm);
		} catch (error) {
			await orm.close();
			throw error;
		}
	}
	return orm;
}

/**
 * Runs the pending migrations while holding a session-level advisory lock on a connection of the
 * ORM's pool. Instances started together on a new database (a deployment's replicas, a server and
 * its worker) each run the migrator; without the lock two of them applied the same migration at
 * once and the loser's start failed on "relation already exists" or the migrations table's key.
 * The one that waited finds nothing pending. The lock goes with its session if the process dies.
 */
async function migrateOneAtATime(orm: Orm): Promise<void> {
	const client = orm.em.getKnex().client as PooledClient;
	const connection = await client.acquireConnection();
	try {
		await withSessionLock(connection, MIGRATION_LOCK, () => orm.getMigrator().up());
	} finally {
		await client.releaseConnection(connection);
	}
}
