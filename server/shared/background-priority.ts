import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The niceness of background work: the kernel gives a thread at nice 0 about nine times its share. */
export const BACKGROUND_NICENESS = 10;

/**
 * Lowers the calling thread's scheduling priority, so background work (index builds, the builtin
 * embedder) takes the cores only when the API's thread, and the database serving it, do not want
 * them: on a saturated machine a runnable request otherwise waits its turn behind builds for tens
 * of milliseconds. On Linux the niceness belongs to the thread (setpriority with pid 0 applies to
 * the caller only), and threads it starts afterwards inherit it. Raising niceness needs no
 * privilege; where the system refuses anyway, the work runs at normal priority. Returns the
 * niceness the thread runs at.
 */
export function runAsBackgroundThread(): number {
	lowerThread(0);
	return getPriority();
}

/**
 * Lowers every thread of this process to background priority: for a process whose work is all
 * background work (the ingestion worker, beside an API server on the same cores). On Linux the
 * threads Node starts before any script runs (V8's collector helpers, libuv's pool) keep the
 * priority they started with whatever the main thread's becomes, and they collect the garbage of
 * a parse or an embedding at normal priority: each is lowered by its id (/proc/self/task). Threads
 * started afterwards inherit the priority of the thread that starts them. Elsewhere the niceness
 * belongs to the process. Best effort, as runAsBackgroundThread.
 */
export function runAsBackgroundProcess(): void {
	const threads = process.platform === "linux" ? readdirSync("/proc/self/task").map(Number) : [0];
	for (const thread of threads) lowerThread(thread);
	if (process.platform === "linux") lowerSessionGroup(process.pid);
}

/**
 * Lowers a process this one has just started, in a session of its own, to background priority: its
 * session's group and its main thread, whose niceness the threads Node starts inherit. Called as
 * soon as the child exists, before its runtime has loaded its code, which runAsBackgroundProcess
 * (its own first statement) can only do after: loading the worker's bundle took a few hundred
 * milliseconds of a core at normal priority, in a group of its own weighing as much as the API's,
 * right when a restarted server answers its first requests. Best effort, as lowerSessionGroup.
 */
export function lowerStartedProcess(pid: number): void {
	if (process.platform !== "linux") return;
	lowerThread(pid);
	lowerSessionGroup(pid);
}

/**
 * Where the kernel schedules by session first (Linux's autogroups, on by default on many systems),
 * a process's niceness weighs only against the processes of its own session, and the session's
 * group shares the cores with every other group by the group's niceness. So a background process
 * that leads a session of its own (a PostgreSQL backend; the ingestion worker, which the server
 * starts in one: jobs/worker-process.ts) lowers its group too. Only a group the process leads is
 * changed, so no other process's share moves. Best effort: a kernel without autogroups, or a
 * refusal, leaves the group as it was.
 */
export function lowerSessionGroup(pid: number): void {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
		if (session !== pid) return;
		writeFileSync(`/proc/${pid}/autogroup`, String(BACKGROUND_NICENESS));
	} catch {
		// The niceness of the threads is what there is.
	}
}

/** Sets a thread (by id; 0: the caller) to background priority; a refusal leaves it as it was. */
function lowerThread(thread: number): void {
	try {
		setPriority(thread, BACKGROUND_NICENESS);
	} catch {
		// Best effort: the work runs at normal priority.
	}
}
