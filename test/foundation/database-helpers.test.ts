import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { resolveDatabase } from "../../server/db/database-url";
import { createTestDatabase } from "../helpers/database";

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("creates a usable database and drops it", async () => {
    const database = await createTestDatabase();
    expect(database.name).toMatch(/^test_[0-9a-f]+$/);
    expect((await query(database.url, "select 1 as one")).rows).toEqual([{ one: 1 }]);

    await database.drop();

    const serverUrl = new URL(database.url);
    serverUrl.pathname = "/postgres";
    const remaining = await query(
      serverUrl.toString(),
      `select 1 from pg_database where datname = '${database.name}'`,
    );
    expect(remaining.rowCount).toBe(0);
  });
});

describe("resolveDatabase", { timeout: 120_000 }, () => {
  it("returns DATABASE_URL unchanged when set", async () => {
    const resolved = await resolveDatabase({ databaseUrl: "postgres://x@db/app", dataDirectory: "unused" });
    expect(resolved).toMatchObject({ url: "postgres://x@db/app", embedded: false });
    await resolved.stop();
  });

  it("starts an embedded cluster that keeps its data across restarts", async () => {
    const dataDirectory = await mkdtemp(path.join(os.tmpdir(), "platform-resolve-"));
    // mkdtemp makes 0700; as root the cluster runs as the `postgres` user.
    await chmod(dataDirectory, 0o755);
    try {
      const first = await resolveDatabase({ dataDirectory });
      try {
        expect(first.embedded).toBe(true);
        expect((await query(first.url, "select current_database() as db")).rows).toEqual([{ db: "platform" }]);
        await query(first.url, "create table kept (id int)");
      } finally {
        await first.stop();
      }

      const second = await resolveDatabase({ dataDirectory });
      try {
        const tables = await query(second.url, "select to_regclass('public.kept') is not null as present");
        expect(tables.rows).toEqual([{ present: true }]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDirectory, { recursive: true, force: true });
    }
  });

  // As root, the cluster runs as the `postgres` system user: a data directory it cannot reach is
  // refused up front, with what to do, instead of a bare EACCES from initdb.
  it.runIf(process.getuid?.() === 0)("refuses, naming the directory and the fix, a data directory the postgres user cannot enter", async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), "platform-private-"));
    try {
      const started = resolveDatabase({ dataDirectory: path.join(parent, "data") });
      await expect(started).rejects.toThrow(`cannot enter ${parent} (mode 0700)`);
      await expect(started).rejects.toThrow(/chmod o\+x .*DATABASE_URL/);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
