import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { ENTITY_SCHEMAS } from "./entities";
import { MIGRATIONS } from "./migrations";

export type Orm = MikroORM;

export function ormOptions(clientUrl: string) {
	return {
		clientUrl,
		entities: ENTITY_SCHEMAS,
		extensions: [Migrator],
		// Migrations are listed statically so they load the same way under tsx, vitest and node.
		migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false, silent: true },
		pool: { min: 0, max: 10 },
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

export async function openDatabase(clientUrl: string, options: { migrate?: boolean } = {}): Promise<Orm> {
	const orm = await MikroORM.init(ormOptions(clientUrl));
	if (options.migrate !== false) await orm.getMigrator().up();
	return orm;
}
