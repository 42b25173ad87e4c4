import { readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { BACKGROUND_NICENESS, lowerSessionGroup } from "../shared/background-priority";

/** What a session's connection exposes here: pg's Client, as the ORM's pool and the index builders hold it. */
interface SessionClient {
	query<Row>(text: string): Promise<{ rows: Row[] }>;
	/** pg's connection; its stream is a TCP socket, or a Unix one (no port). */
	connection?: { stream?: object };
}

/** application_name of the ingestion worker's pooled sessions: an operator sees them apart in pg_stat_activity. */
export const WORKER_APPLICATION_NAME = "platform-worker";

/**
 * Lowers the PostgreSQL backend serving `client` to background priority, where the database runs
 * on this machine and the system allows it (the same user, as the embedded default database is,
 * or root): the statements of background work (an ingestion's inserts, each computing its chunks'
 * tsvectors; an index build reading a million rows) then take the cores only when the API's
 * thread and the sessions serving its requests leave them idle, as the worker's own threads do
 * (shared/background-priority.ts). Measured: during a 1M ingestion a slow `/healthz` had the API's
 * thread waiting 163 ms for a core while two ingestion backends used one between them.
 *
 * A process id from another machine must never be reniced here: the backend's process must be
 * this machine's PostgreSQL backend of this very connection, its title (`postgres: … 127.0.0.1(port)
 * …`) naming the connection's local port. A socket connection, another system or a refusal leaves
 * the session as it was.
 */
export async function lowerSessionPriority(client: SessionClient): Promise<void> {
	if (process.platform !== "linux") return;
	const { localPort, remoteAddress: remote } = (client.connection?.stream ?? {}) as { localPort?: number; remoteAddress?: string };
	if (!localPort || !remote || !isLoopback(remote)) return;
	try {
		const [{ pid }] = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
		const title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
		if (!title.startsWith("postgres:") || !title.includes(`(${localPort})`)) return;
		setPriority(pid, BACKGROUND_NICENESS);
		// Every backend leads a session of its own: its niceness alone would weigh only against itself
		// (seen: a slow `/healthz` with the API's thread waiting 210 ms behind a backend already at nice 10).
		lowerSessionGroup(pid);
	} catch {
		// Best effort: the statements run at normal priority.
	}
}

function isLoopback(address: string): boolean {
	return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
