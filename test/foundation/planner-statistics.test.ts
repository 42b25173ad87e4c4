import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshPlannerStatistics } from "../../server/db/planner-statistics";
import { createTestDatabase } from "../helpers/database";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const clients: pg.Client[] = [];

async function connect(): Promise<pg.Client> {
	const client = new pg.Client({ connectionString: database.url });
	await client.connect();
	clients.push(client);
	return client;
}

/** Waits until PostgreSQL's statistics show `changed` rows modified in `table` since its last analysis (backends report them asynchronously). */
async function changesVisible(client: pg.Client, table: string, changed: number): Promise<void> {
	const deadline = Date.now() + 10_000;
	for (;;) {
		const { rows } = await client.query<{ changed: string }>("select n_mod_since_analyze as changed from pg_stat_user_tables where relname = $1", [table]);
		if (Number(rows[0]?.changed) >= changed) return;
		if (Date.now() > deadline) throw new Error(`${table}: ${rows[0]?.changed} changes visible, expected ${changed}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

async function analysedRows(client: pg.Client, table: string): Promise<{ analysed: boolean; estimated: number }> {
	const { rows } = await client.query<{ analysed: boolean; estimated: number }>(
		"select s.last_analyze is not null as analysed, c.reltuples::float8 as estimated from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = $1",
		[table],
	);
	return rows[0];
}

/**
 * A bulk ingestion leaves the knowledge tables without planner statistics where autovacuum is off
 * or has not come round yet; a build that reads a source's every chunk analyses them first when
 * they changed past autovacuum's own threshold (50 rows + 10%), and only then.
 */
describe("planner statistics before a bulk read", () => {
	beforeAll(async () => {
		database = await createTestDatabase();
		const client = await connect();
		await client.query("create table bulk (id int primary key, text text); create table few (id int primary key)");
	});

	afterAll(async () => {
		await Promise.all(clients.map((client) => client.end()));
		await database.drop();
	});

	it("analyses a table changed past the threshold, leaves the others, and analyses it again only once it changed by a tenth more", async () => {
		const client = await connect();
		await client.query("insert into bulk select n, repeat('x', 20) from generate_series(1, 2000) n");
		await client.query("insert into few select n from generate_series(1, 30) n");
		await changesVisible(client, "bulk", 2000);
		await changesVisible(client, "few", 30);
		expect(await analysedRows(client, "bulk")).toEqual({ analysed: false, estimated: -1 });

		expect(await refreshPlannerStatistics(client, ["bulk", "few"])).toEqual(["bulk"]);
		expect(await analysedRows(client, "bulk")).toEqual({ analysed: true, estimated: 2000 });
		// 30 rows changed: under the 50 every table may change unanalysed.
		expect((await analysedRows(client, "few")).analysed).toBe(false);
		expect(await refreshPlannerStatistics(client, ["bulk", "few"])).toEqual([]);

		// 150 more rows: under 50 + 10% of 2,000.
		await client.query("insert into bulk select n, 'y' from generate_series(2001, 2150) n");
		await changesVisible(client, "bulk", 150);
		expect(await refreshPlannerStatistics(client, ["bulk"])).toEqual([]);
		// 150 more: past it.
		await client.query("insert into bulk select n, 'y' from generate_series(2151, 2300) n");
		await changesVisible(client, "bulk", 300);
		expect(await refreshPlannerStatistics(client, ["bulk"])).toEqual(["bulk"]);
		expect(await analysedRows(client, "bulk")).toEqual({ analysed: true, estimated: 2300 });
	});

	it("analyses once when several processes find the statistics stale together", async () => {
		const writer = await connect();
		await writer.query("insert into bulk select n, 'z' from generate_series(3001, 6000) n");
		await changesVisible(writer, "bulk", 3000);
		const readers = await Promise.all([connect(), connect(), connect()]);
		const analysed = await Promise.all(readers.map((reader) => refreshPlannerStatistics(reader, ["bulk"])));
		expect(analysed.filter((tables) => tables.length > 0)).toEqual([["bulk"]]);
		expect((await analysedRows(writer, "bulk")).estimated).toBe(5300);
	});
});
