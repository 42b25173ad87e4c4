import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";
import {
  canTraverse,
  copyBinaries,
  ensurePostgresAccount,
  initialiseCluster,
  locateBundledBinaries,
  POSTGRES_ACCOUNT,
  type PostgresBinaries,
  type RunningCluster,
  startCluster,
  type SystemAccount,
} from "./embedded-postgres";

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
  /** EMBEDDED_POSTGRES_DIR: where the cluster and binaries go when the postgres account cannot enter the checkout. */
  relocationDirectory?: string;
  log?: (message: string) => void;
}): Promise<ResolvedDatabase> {
  if (options.databaseUrl) {
    return { url: options.databaseUrl, embedded: false, stop: async () => {} };
  }

  const log = options.log ?? ((message: string) => console.log(message));
  const verbose = Boolean(process.env.EMBEDDED_POSTGRES_VERBOSE);
  await mkdir(options.dataDirectory, { recursive: true });
  const placement = await placeCluster(options.dataDirectory, options.relocationDirectory ?? DEFAULT_RELOCATION_DIRECTORY);
  const clusterDir = placement.clusterDirectory;
  if (placement.relocated) log(`embedded PostgreSQL cluster in ${clusterDir}: the system user '${POSTGRES_ACCOUNT}' cannot enter ${placement.relocated}`);
  const clusterExists = existsSync(path.join(clusterDir, "PG_VERSION"));
  const password = await loadOrCreatePassword(options.dataDirectory, clusterExists, clusterDir);
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

  // Postgres' output is noisy, so it is dropped unless asked for; failures quote its last lines.
  const onLog = verbose ? log : () => {};
  const cluster = { binaries: placement.binaries, directory: clusterDir, account: placement.account, log: onLog };
  if (!clusterExists) await initialiseCluster({ ...cluster, password });
  let server: RunningCluster;
  try {
    // TCP on loopback only: no unix socket in /tmp whose lock file could
    // collide with another cluster or outlive a killed process.
    server = await startCluster({ ...cluster, port, flags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="] });
  } catch (error) {
    throw new Error(`Embedded PostgreSQL failed to start in ${clusterDir}:\n${error instanceof Error ? error.message : String(error)}`);
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

/** Where clusters and binaries go when the checkout is out of the postgres account's reach (root's 0700 home). */
export const DEFAULT_RELOCATION_DIRECTORY = "/var/lib/ai-app-platform";

interface ClusterPlacement {
  clusterDirectory: string;
  binaries: PostgresBinaries;
  /** Root only: the account PostgreSQL runs as. */
  account?: SystemAccount;
  /** The directory the account could not enter, when the cluster or binaries live elsewhere because of it. */
  relocated?: string;
}

/**
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` account, which must
 * search every directory above its binaries and its cluster. A checkout inside a 0700 directory
 * (root's home, where containers often put it) is out of its reach; rather than asking anyone to
 * open that directory up, the binaries are copied and the cluster kept under the relocation
 * directory (0755 root-owned, the cluster itself 0700 owned by postgres), named after DATA_DIR's
 * real path so the server, the worker and the CLI of one checkout find the same cluster.
 */
async function placeCluster(dataDirectory: string, relocationDirectory: string): Promise<ClusterPlacement> {
  const bundled = await locateBundledBinaries();
  const inDataDirectory = path.join(dataDirectory, "postgres");
  if (process.getuid?.() !== 0) return { clusterDirectory: inDataDirectory, binaries: bundled };
  const account = await ensurePostgresAccount();
  const binariesReach = await canTraverse(account, bundled.root);
  const clusterReach = await canTraverse(account, inDataDirectory);
  if (binariesReach.ok && clusterReach.ok) return { clusterDirectory: inDataDirectory, binaries: bundled, account };
  const refusal = !clusterReach.ok ? clusterReach : binariesReach.ok ? undefined : binariesReach;
  const relocationReach = await canTraverse(account, relocationDirectory);
  if (!relocationReach.ok) {
    throw new Error(
      `The embedded PostgreSQL runs as the system user '${POSTGRES_ACCOUNT}', which can enter neither ${refusal?.directory} (mode ${formatMode(refusal?.mode)}) ` +
        `nor ${relocationReach.directory} (mode ${formatMode(relocationReach.mode)}), the relocation directory: set EMBEDDED_POSTGRES_DIR to a directory it can enter, or DATABASE_URL to a PostgreSQL server of your own.`,
    );
  }
  const binaries = binariesReach.ok ? bundled : await copyBinaries(bundled, relocationDirectory);
  if (clusterReach.ok) return { clusterDirectory: inDataDirectory, binaries, account, relocated: refusal?.directory };
  if (existsSync(path.join(inDataDirectory, "PG_VERSION"))) {
    throw new Error(
      `The cluster in ${inDataDirectory} was made when the system user '${POSTGRES_ACCOUNT}' could enter it; it can no longer enter ${clusterReach.directory}. ` +
        `Move the checkout back, or set DATABASE_URL.`,
    );
  }
  const identity = createHash("sha256").update(await realpath(dataDirectory)).digest("hex").slice(0, 16);
  const clusters = path.join(relocationDirectory, "clusters");
  await mkdir(clusters, { recursive: true, mode: 0o755 });
  return { clusterDirectory: path.join(clusters, identity), binaries, account, relocated: clusterReach.directory };
}

function formatMode(mode: number | undefined): string {
  return (mode ?? 0).toString(8).padStart(4, "0");
}

/**
 * The password is baked into the cluster at initdb time, so it must survive
 * restarts; it lives next to the cluster, readable only by its owner.
 */
async function loadOrCreatePassword(dataDirectory: string, clusterExists: boolean, clusterDirectory: string): Promise<string> {
  const file = path.join(dataDirectory, "postgres-password");
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  if (clusterExists) {
    throw new Error(
      `${file} is missing but the cluster in ${clusterDirectory} exists; ` +
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
