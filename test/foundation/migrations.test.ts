import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MikroORM } from "@mikro-orm/postgresql";
import { openDatabase, ormOptions } from "../../server/db/orm";
import { createTestDatabase } from "../helpers/database";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: MikroORM;

const DOMAIN_TABLES = [
	"api_keys",
	"assistant_drafts",
	"assistant_versions",
	"assistants",
	"audit_events",
	"deployment_events",
	"deployments",
	"environments",
	"evaluation_cases",
	"evaluation_datasets",
	"evaluation_results",
	"evaluation_runs",
	"idempotency_records",
	"knowledge_chunks",
	"knowledge_documents",
	"knowledge_sources",
	"memberships",
	"oauth_connections",
	"oauth_records",
	"organizations",
	"provider_credentials",
	"traces",
	"users",
	"workspaces",
];

async function tables(): Promise<string[]> {
	const rows: { table_name: string }[] = await orm.em
		.getConnection()
		.execute("select table_name from information_schema.tables where table_schema = 'public' and table_name <> 'mikro_orm_migrations' order by 1");
	return rows.map((row) => row.table_name);
}

beforeAll(async () => {
	database = await createTestDatabase();
	orm = await MikroORM.init(ormOptions(database.url));
});
afterAll(async () => {
	await orm?.close();
	await database?.drop();
});

describe("migrations", () => {
	it("build the whole domain from an empty database", async () => {
		expect(await tables()).toEqual([]);
		await orm.getMigrator().up();
		expect(await tables()).toEqual(expect.arrayContaining(DOMAIN_TABLES));
		expect(await orm.getMigrator().getPendingMigrations()).toEqual([]);
	});

	it("match the entity schemas exactly (no drift a new migration would have to fix)", async () => {
		const drift = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
		expect(drift.trim()).toBe("");
	});

	it("freeze assistant versions at the database level", async () => {
		const sql = orm.em.getConnection();
		await sql.execute("insert into organizations (id, name, created_at, updated_at) values ('org_1', 'O', now(), now())");
		await sql.execute("insert into workspaces (id, organization_id, name, created_at, updated_at) values ('ws_1', 'org_1', 'W', now(), now())");
		await sql.execute("insert into assistants (id, workspace_id, slug, name, created_at, updated_at) values ('asst_1', 'ws_1', 'a', 'A', now(), now())");
		await sql.execute(
			"insert into assistant_versions (id, workspace_id, assistant_id, version, config, created_at) values ('ver_1', 'ws_1', 'asst_1', 1, '{}', now())",
		);
		await expect(sql.execute("update assistant_versions set config = '{\"x\":1}' where id = 'ver_1'")).rejects.toThrow(/immutable/);
	});

	it("roll all the way down and up again", async () => {
		await orm.getMigrator().down({ to: 0 });
		expect(await tables()).toEqual([]);
		await orm.getMigrator().up();
		expect(await tables()).toEqual(expect.arrayContaining(DOMAIN_TABLES));
	});

	it("run one instance at a time when several start together on a new database (each starts, the schema applied once)", async () => {
		const fresh = await createTestDatabase();
		try {
			// Four instances starting at once, as a deployment's replicas and their workers do on a first start.
			const started = await Promise.allSettled([1, 2, 3, 4].map(() => openDatabase(fresh.url)));
			for (const outcome of started) if (outcome.status === "fulfilled") await outcome.value.close();
			expect(started.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "started"))).toEqual(["started", "started", "started", "started"]);
			const check = await MikroORM.init(ormOptions(fresh.url));
			try {
				const applied: { name: string; count: string }[] = await check.em.getConnection().execute("select name, count(*) from mikro_orm_migrations group by name having count(*) > 1");
				expect(applied).toEqual([]);
				expect(await check.getMigrator().getPendingMigrations()).toEqual([]);
			} finally {
				await check.close();
			}
		} finally {
			await fresh.drop();
		}
	});
});
