import { randomBytes } from "node:crypto";
import pg from "pg";

/** The local server the tests use when TEST_DATABASE_URL is not set. */
export const DEFAULT_TEST_SERVER_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * Creates a fresh, uniquely named database so test files can run in parallel
 * without sharing state. The server is TEST_DATABASE_URL, which
 * test/global-setup.ts sets to an embedded PostgreSQL when nothing answers at
 * the default address.
 */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_SERVER_URL;
  const name = `test_${randomBytes(8).toString("hex")}`;
  await run(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    // FORCE: a test that leaked a connection must not make cleanup fail.
    drop: () => run(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

async function run(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    const where = new URL(serverUrl).host;
    throw new Error(
      `Cannot reach the test PostgreSQL at ${where} (${String(error)}). ` +
        "Set TEST_DATABASE_URL, or run through vitest.config.ts whose globalSetup starts an embedded one.",
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
