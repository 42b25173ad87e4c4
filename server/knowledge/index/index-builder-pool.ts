import { Worker } from "node:worker_threads";
import { threadEntry } from "../../shared/thread-entry";
import { GraphSearchThread } from "./graph-search-thread";
import type { InvertedLexicon, LexiconPairs, LexiconTransfer } from "./lexical-index";
import type { FoldCondition } from "./source-chunk-cache";
import type { MatrixTransfer } from "./vector-cache";
import type { VectorIndexTransfer } from "./vector-index-files";

/**
 * What an index-builder thread does: read a source's chunks (all, or some documents') and build,
 * re-invert a lexicon, or embed a batch of an ingested document's chunks with the builtin embedder.
 */
export type BuildTask =
	/**
	 * A whole source's lexicon in memory (a source under the file threshold, or with no index
	 * directory: larger ones are built into a file, `lexicon-file`), or some documents' (a delta).
	 */
	| { kind: "lexicon"; sourceId: string; documentIds?: string[] }
	/** Reads the source's current lexicon file (or generation `name`) in pieces, if there is one (nothing from PostgreSQL). */
	| { kind: "open-lexicon"; sourceId: string; directory: string; name?: string }
	/**
	 * Writes a new lexicon file under the source's fold lock: the current one with the changes
	 * since, or a build when there is none; or, when `condition` says there is too little to
	 * write, nothing (source-chunk-cache.ts, FoldCondition). Returns the current generation after
	 * it, null when there is none.
	 */
	| { kind: "lexicon-file"; sourceId: string; directory: string; condition?: FoldCondition }
	| { kind: "matrix"; sourceId: string; documentIds?: string[]; dimensions?: number }
	| { kind: "invert-lexicon"; pairs: LexiconPairs }
	| { kind: "embed-builtin"; texts: string[] }
	/**
	 * Builds the source's vector index files (column runs, and an HNSW graph if `graph`), or folds
	 * the changes since the current generation into a new one, under the source's fold lock; with
	 * `condition`, leaves them as they are when it says so. Returns the current generation after it.
	 */
	| { kind: "vector-index"; sourceId: string; directory: string; graph: boolean; condition?: FoldCondition }
	/** Reads the current generation's description, if there is one (nothing from PostgreSQL). */
	| { kind: "open-vector-index"; sourceId: string; directory: string }
	/** Frees buffers the API's thread lets go of (transferred here): the kernel's unmapping of gigabytes is then this thread's time. */
	| { kind: "release-buffers"; buffers: ArrayBuffer[] };

export interface BuildResults {
	lexicon: LexiconTransfer;
	"open-lexicon": LexiconTransfer | null;
	"lexicon-file": { name: string; chunks: number; written: boolean } | null;
	matrix: MatrixTransfer;
	"invert-lexicon": InvertedLexicon;
	/** The texts' vectors end to end (BUILTIN_DIMENSIONS values each), transferred. */
	"embed-builtin": Float32Array;
	"vector-index": VectorIndexTransfer | null;
	"open-vector-index": VectorIndexTransfer | null;
	"release-buffers": null;
}

/**
 * Tasks that read or re-invert a whole source: their thread ends with the garbage of a whole
 * lexicon, matrix or graph in its heap (gigabytes at a million chunks), which an idle thread would
 * keep until its next allocation, so their thread exits when they are done instead of waiting for
 * the next task. A thread starts in tens of milliseconds; these tasks take seconds to minutes.
 */
export function isWholeSourceTask(task: BuildTask): boolean {
	switch (task.kind) {
		case "lexicon":
		case "matrix":
			return task.documentIds === undefined;
		case "vector-index":
		case "lexicon-file":
		case "invert-lexicon":
			return true;
		default:
			return false;
	}
}

/** What an index-builder thread is started with. */
export interface BuilderThreadData {
	databaseUrl: string;
	role: "builder" | "graph-search";
	/** The graph-search thread's resident column blocks (vector-columns.ts, ColumnPages). */
	residentColumnBytes: number;
}

export type BuildRequest = { id: number; task: BuildTask };
export type BuildReply = { id: number; result: BuildResults[BuildTask["kind"]] } | { id: number; failure: string };

export interface IndexBuilderLimits {
	/** Builds running at once, all workspaces together: each holds a thread and a database connection. */
	threads: number;
	/**
	 * Builds of one workspace running at once (its lexicon and matrix of one source side by side):
	 * one workspace's loads queue behind each other, never another workspace's.
	 */
	threadsPerWorkspace: number;
	/**
	 * Threads kept after their build for the next one (a thread starts in tens of milliseconds):
	 * two, so two documents embedding batch after batch side by side do not start a thread per batch.
	 */
	idleThreads: number;
	/** How long a thread is kept idle (whole-source tasks' threads are not kept: see isWholeSourceTask). */
	idleMs: number;
}

export const DEFAULT_INDEX_BUILDER_LIMITS: IndexBuilderLimits = { threads: 4, threadsPerWorkspace: 2, idleThreads: 2, idleMs: 30_000 };

interface Job {
	workspace: string;
	task: BuildTask;
	transfer: ArrayBuffer[];
	resolve(result: unknown): void;
	reject(error: Error): void;
}

/**
 * Threads that read a source's chunks from PostgreSQL (streamed, a page of rows at a time, on a
 * connection of their own) and build its search structures, handing them back as transferred
 * typed arrays: the API's event loop never reads a whole source, builds an index or re-inverts
 * one, so a 100k-chunk source loading for one tenant leaves every other request, /healthz
 * included, answered as usual. Builds are shared out per workspace (threadsPerWorkspace), so a
 * tenant loading several large sources waits for itself, not others for it.
 */
export class IndexBuilderPool {
	private readonly queue: Job[] = [];
	private idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
	private readonly busy = new Set<Worker>();
	private readonly runningPerWorkspace = new Map<string, number>();
	private running = 0;
	private nextId = 0;
	private closed = false;
	private readonly entry = threadEntry(import.meta.url, "index-builder-thread.ts", "index-builder");
	/** The thread the HNSW graphs are viewed and searched on (not one of the pool's: it never waits for a build). */
	readonly graphs = new GraphSearchThread(() => this.spawnThread("graph-search"));
	/** Tasks completed, by kind; for operators, the benchmark and tests. */
	readonly completed: Record<BuildTask["kind"], number> = { lexicon: 0, "open-lexicon": 0, "lexicon-file": 0, matrix: 0, "invert-lexicon": 0, "embed-builtin": 0, "vector-index": 0, "open-vector-index": 0, "release-buffers": 0 };
	/** Threads started (a whole-source task's thread exits after it; other threads are kept idle for a while). */
	threadsStarted = 0;

	constructor(
		private readonly databaseUrl: string,
		private readonly limits: IndexBuilderLimits = DEFAULT_INDEX_BUILDER_LIMITS,
		/** What the graph-search thread keeps of builtin sources' int8 columns between searches (KNOWLEDGE_VECTOR_COLUMN_CACHE_MB). */
		private readonly residentColumnBytes = 0,
	) {}

	/** Runs the task on a builder thread when the workspace's share and the pool allow; `transfer` lists buffers of the task to move, not copy. */
	run<K extends BuildTask["kind"]>(workspace: string, task: Extract<BuildTask, { kind: K }>, transfer: ArrayBuffer[] = []): Promise<BuildResults[K]> {
		if (this.closed) return Promise.reject(new Error("The index builders are closed"));
		return new Promise((resolve, reject) => {
			this.queue.push({ workspace, task, transfer, resolve: resolve as (result: unknown) => void, reject });
			this.dispatch();
		});
	}

	/**
	 * Frees `buffers` (nothing may read them again) on a builder thread, as a task of `workspace`:
	 * they are detached here when the task starts. Best effort: with the pool closed they are left
	 * to the garbage collector.
	 */
	release(workspace: string, buffers: ArrayBuffer[]): void {
		if (buffers.length === 0) return;
		this.run(workspace, { kind: "release-buffers", buffers }, buffers).catch(() => undefined);
	}

	/**
	 * Starts the threads the pool keeps idle (limits.idleThreads) ahead of any build: a thread takes
	 * a tenth of a second or more to start (its bundle loaded, native modules bound), which a
	 * restart's first search of a large source waited for twice, opening its lexicon and its
	 * vectors side by side. They leave after limits.idleMs unused, as any idle thread does.
	 */
	prestart(): void {
		while (!this.closed && this.idle.length < this.limits.idleThreads) this.park(this.spawn());
	}

	/** Builds running and waiting; for tests and operators. */
	get load(): { running: number; queued: number } {
		return { running: this.running, queued: this.queue.length };
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const job of this.queue.splice(0)) job.reject(new Error("The index builders are closed"));
		for (const { timer } of this.idle) clearTimeout(timer);
		const threads = [...this.idle.map(({ worker }) => worker), ...this.busy];
		this.idle = [];
		await Promise.all([...threads.map((worker) => worker.terminate()), this.graphs.close()]);
	}

	private dispatch(): void {
		for (let index = 0; index < this.queue.length && this.running < this.limits.threads; ) {
			const job = this.queue[index];
			if ((this.runningPerWorkspace.get(job.workspace) ?? 0) >= this.limits.threadsPerWorkspace) {
				index++;
				continue;
			}
			this.queue.splice(index, 1);
			this.start(job);
		}
	}

	private start(job: Job): void {
		this.running++;
		this.runningPerWorkspace.set(job.workspace, (this.runningPerWorkspace.get(job.workspace) ?? 0) + 1);
		const parked = this.idle.pop();
		if (parked) clearTimeout(parked.timer);
		const worker = parked?.worker ?? this.spawn();
		this.busy.add(worker);
		worker.ref();
		const id = ++this.nextId;
		let settled = false;
		const finish = (keepThread: boolean) => {
			if (settled) return;
			settled = true;
			worker.off("message", onMessage);
			worker.off("error", onError);
			worker.off("exit", onExit);
			this.busy.delete(worker);
			this.running--;
			const left = (this.runningPerWorkspace.get(job.workspace) ?? 1) - 1;
			if (left > 0) this.runningPerWorkspace.set(job.workspace, left);
			else this.runningPerWorkspace.delete(job.workspace);
			if (keepThread && !this.closed && this.idle.length < this.limits.idleThreads) {
				this.park(worker);
			} else {
				void worker.terminate();
			}
			this.dispatch();
		};
		const onMessage = (reply: BuildReply) => {
			if (reply.id !== id) return;
			finish(!isWholeSourceTask(job.task));
			if ("failure" in reply) {
				job.reject(new Error(reply.failure));
				return;
			}
			this.completed[job.task.kind]++;
			job.resolve(reply.result);
		};
		const onError = (error: Error) => {
			finish(false);
			job.reject(error);
		};
		const onExit = (code: number) => {
			finish(false);
			job.reject(new Error(`The index builder thread stopped (exit code ${code})`));
		};
		worker.on("message", onMessage);
		worker.on("error", onError);
		worker.on("exit", onExit);
		worker.postMessage({ id, task: job.task } satisfies BuildRequest, job.transfer);
	}

	/** Keeps a thread for the next build, for a while; an idle thread keeps nothing alive (a process done with its work can exit). */
	private park(worker: Worker): void {
		worker.unref();
		const timer = setTimeout(() => {
			this.idle = this.idle.filter((parked) => parked.worker !== worker);
			void worker.terminate();
		}, this.limits.idleMs);
		timer.unref();
		this.idle.push({ worker, timer });
	}

	private spawn(): Worker {
		this.threadsStarted++;
		const worker = this.spawnThread("builder");
		// An idle thread that dies (it should not) leaves the idle list.
		worker.on("exit", () => {
			this.idle = this.idle.filter((parked) => parked.worker !== worker);
		});
		worker.on("error", () => {});
		return worker;
	}

	/** Builders run at background priority (a search waits on the graph-search thread: it does not). */
	private spawnThread(role: BuilderThreadData["role"]): Worker {
		return new Worker(this.entry.code, { eval: this.entry.eval, workerData: { databaseUrl: this.databaseUrl, role, residentColumnBytes: role === "graph-search" ? this.residentColumnBytes : 0 } satisfies BuilderThreadData });
	}
}
