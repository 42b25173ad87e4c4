import { chmod, mkdtemp, readdir, rm, stat } from "node:fs/promises";
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

  // As root, the cluster runs as the `postgres` system user, which cannot enter a 0700 directory of
  // root's: the cluster goes to the relocation directory instead, and the directory keeps its mode.
  it.runIf(process.getuid?.() === 0)("keeps a data directory the postgres user cannot enter private, with the cluster in the relocation directory", async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), "platform-private-"));
    const relocation = await mkdtemp(path.join(os.tmpdir(), "platform-relocation-"));
    await chmod(relocation, 0o755);
    const dataDirectory = path.join(parent, "data");
    try {
      const first = await resolveDatabase({ dataDirectory, relocationDirectory: relocation, log: () => {} });
      try {
        expect(first.embedded).toBe(true);
        await query(first.url, "create table kept (id int)");
      } finally {
        await first.stop();
      }
      expect((await stat(parent)).mode & 0o777).toBe(0o700);
      const clusters = await readdir(path.join(relocation, "clusters"));
      expect(clusters).toHaveLength(1);
      const cluster = await stat(path.join(relocation, "clusters", clusters[0]));
      expect(cluster.mode & 0o777).toBe(0o700);
      expect(cluster.uid).not.toBe(0);
      // The same DATA_DIR finds the same cluster again.
      const second = await resolveDatabase({ dataDirectory, relocationDirectory: relocation, log: () => {} });
      try {
        expect((await query(second.url, "select to_regclass('public.kept') is not null as present")).rows).toEqual([{ present: true }]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
      await rm(relocation, { recursive: true, force: true });
    }
  });

  it.runIf(process.getuid?.() === 0)("refuses, naming both directories and the settings, when the relocation directory is out of reach too", async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), "platform-private-"));
    try {
      const started = resolveDatabase({ dataDirectory: path.join(parent, "data"), relocationDirectory: path.join(parent, "relocation") });
      await expect(started).rejects.toThrow(`can enter neither ${parent} (mode 0700)`);
      await expect(started).rejects.toThrow(/EMBEDDED_POSTGRES_DIR .*DATABASE_URL/);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
