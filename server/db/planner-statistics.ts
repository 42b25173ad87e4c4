import type { RawConnection } from "./raw-connection";
import { withSessionLock } from "./session-locks";

/** The tables a source's index builds read every row of: chunks joined to their READY documents. */
export const KNOWLEDGE_TABLES = ["knowledge_documents", "knowledge_chunks"] as const;

/** Rows changed since a table's last analysis past which it is analysed again: autovacuum's defaults (50 + 10%). */
const CHANGED_ROWS_BASE = 50;
const CHANGED_ROWS_SHARE = 0.1;

/**
 * Analyses those of `tables` that changed by more than autovacuum's own threshold since their last
 * analysis (or were never analysed), before a statement that reads a source's every chunk: a
 * bulk ingestion leaves PostgreSQL planning from no statistics at all where autovacuum is off or
 * has not come round yet (off on this machine), and then it read a million-chunk source by a
 * nested loop over every READY document, each turn scanning the source's whole index entry: the
 * cursor's first page took about 100 s of the first search after a 1M ingestion. ANALYZE reads a
 * sample (30,000 rows), a second or two at that size, and takes no lock that stops reads or writes.
 * One process at a time (an advisory lock); one that waited finds the statistics fresh. A role
 * that does not own the tables gets PostgreSQL's warning and the plan as before. Returns the
 * tables analysed.
 */
export async function refreshPlannerStatistics(connection: RawConnection, tables: readonly string[] = KNOWLEDGE_TABLES): Promise<string[]> {
	if ((await staleTables(connection, tables)).length === 0) return [];
	return withSessionLock(connection, "platform-planner-statistics", async () => {
		const stale = await staleTables(connection, tables);
		if (stale.length > 0) await connection.query(`analyze ${stale.map((table) => `"${table.replaceAll('"', '""')}"`).join(", ")}`);
		return stale;
	});
}

/** Those of `tables` changed past the threshold since their last analysis (reltuples is -1 until a first one). */
async function staleTables(connection: RawConnection, tables: readonly string[]): Promise<string[]> {
	const { rows } = await connection.query<{ name: string; estimated: number; changed: string }>(
		`select c.relname as name, c.reltuples::float8 as estimated, s.n_mod_since_analyze as changed
		 from pg_class c join pg_stat_user_tables s on s.relid = c.oid
		 where c.oid = any($1::text[]::regclass[])`,
		[tables],
	);
	return rows.filter((row) => Number(row.changed) > CHANGED_ROWS_BASE + CHANGED_ROWS_SHARE * Math.max(0, row.estimated)).map((row) => row.name);
}
