import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { lowerStartedProcess } from "../shared/background-priority";
import type { Logger } from "../shared/logger";

export interface WorkerProcessOptions {
	/** The worker's bundle (dist/worker.js beside the server's). */
	script: string;
	/** Added to this process's environment: the database's address, which jobs to run. */
	environment: Record<string, string>;
	logger: Logger;
	/** How long a stopping worker may take to finish its jobs before it is killed. */
	stopGraceMs: number;
}

/** The first restart waits this long, each next one twice as long up to the ceiling; a run this long resets it. */
const FIRST_RESTART_DELAY_MS = 500;
const LONGEST_RESTART_DELAY_MS = 30_000;
const HEALTHY_RUN_MS = 60_000;

/**
 * One `npm run worker` process that the server starts beside itself and keeps running
 * (KNOWLEDGE_WORKER=process, the default). Ingestion then parses, chunks, embeds and writes from a
 * heap and an event loop of its own: its garbage is collected there, not in pauses of the API's
 * requests, and a document that exhausts a worker's memory restarts the worker, not the API.
 * A worker that exits on its own is started again after a growing delay. It stops when the server
 * asks, finishing its jobs first, and on its own when the server dies: it watches the IPC channel
 * to this process (server/worker.ts). It runs at background priority, all its threads
 * (shared/background-priority.ts), in a session of its own whose scheduling group is lowered too,
 * from the moment it exists (lowerStartedProcess): requests to this server take the cores first.
 */
export class WorkerProcess {
	private child: ChildProcess | undefined;
	private stopping = false;
	private restartDelayMs = FIRST_RESTART_DELAY_MS;
	private restartTimer: NodeJS.Timeout | undefined;

	private constructor(private readonly options: WorkerProcessOptions) {}

	static start(options: WorkerProcessOptions): WorkerProcess {
		const worker = new WorkerProcess(options);
		worker.spawn();
		return worker;
	}

	private spawn(): void {
		const startedAt = Date.now();
		const child = spawn(process.execPath, [...process.execArgv, this.options.script], {
			env: { ...process.env, ...this.options.environment },
			// Its log lines go where the server's go; the channel tells it when the server is gone.
			stdio: ["ignore", "inherit", "inherit", "ipc"],
			// A session of its own, whose scheduling group is lowered at once (lowerStartedProcess): where Linux
			// shares the cores between sessions first, a worker in the server's session made the server's
			// group busy, and the API's thread, waking for a request, waited its group's turn behind other
			// groups (the database's sessions, other programs). It still stops with the server: a terminal's
			// Ctrl-C reaches the server, which stops it, and a server that dies closes the channel.
			detached: true,
		});
		this.child = child;
		if (child.pid !== undefined) lowerStartedProcess(child.pid);
		// The channel only watches for the server's death: it must not keep this process alive.
		child.channel?.unref();
		child.once("spawn", () => {
			this.options.logger.info("ingestion worker process started", { pid: child.pid });
		});
		child.once("error", (error) => this.options.logger.error("could not start the ingestion worker process", { error }));
		child.once("exit", (code, signal) => {
			this.child = undefined;
			if (this.stopping) return;
			if (Date.now() - startedAt >= HEALTHY_RUN_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
			this.options.logger.error("the ingestion worker process exited; starting it again", { pid: child.pid, code, signal, inMs: this.restartDelayMs });
			this.restartTimer = setTimeout(() => this.spawn(), this.restartDelayMs);
			this.restartDelayMs = Math.min(this.restartDelayMs * 2, LONGEST_RESTART_DELAY_MS);
		});
	}

	/** Asks the worker to finish its jobs and exit (SIGTERM); kills it if it has not after the grace. */
	async stop(): Promise<void> {
		this.stopping = true;
		clearTimeout(this.restartTimer);
		const child = this.child;
		if (!child) return;
		const exited = once(child, "exit");
		child.kill("SIGTERM");
		const timer = setTimeout(() => {
			this.options.logger.warn("the ingestion worker process did not stop in time; killing it", { pid: child.pid });
			child.kill("SIGKILL");
		}, this.options.stopGraceMs);
		try {
			await exited;
		} finally {
			clearTimeout(timer);
		}
	}
}
