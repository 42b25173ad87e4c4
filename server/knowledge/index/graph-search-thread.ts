import type { Worker } from "node:worker_threads";
import { AnsweringThread } from "../../shared/answering-thread";
import type { GraphDescription, GraphHits, GraphReply, GraphRequest } from "./graph-views";

/** A generation's graph viewed on the graph-search thread; when it is no longer reachable, the thread lets the graph go. */
export interface ViewedGraphHandle {
	readonly graph: number;
}

/**
 * The thread that holds every HNSW graph this process searches (graph-views.ts) and answers their
 * searches: viewing a graph walks all its nodes and a search walks thousands of them (a few
 * milliseconds at 100k keys, more at a million), none of it on the API's event loop, and a search's
 * vector half runs there while the API's thread ranks the lexical half (in slices). One thread: searches queue
 * in order, a view never waits for an index build (builds have threads of their own). It is
 * started with the first graph and started again, with the graphs still held, if it ever dies.
 * A graph is let go when the ApproximateIndex that viewed it is collected (a search under way may
 * still hold a replaced one, so there is no explicit close).
 */
export class GraphSearchThread {
	private readonly thread: AnsweringThread<GraphRequest, GraphReply>;
	/** What each held graph was viewed from: viewed again by a new thread. */
	private readonly held = new Map<number, GraphDescription>();
	private nextGraph = 0;
	private readonly released = new FinalizationRegistry<number>((graph) => this.release(graph));
	/** Searches answered, and of those, answered by the int8 columns' exact scan; for tests and operators. */
	searches = 0;
	columnScans = 0;
	/** Column blocks the scans found resident on the thread, and read from the runs' files (vector-columns.ts, ColumnPages). */
	readonly columnBlocks = { resident: 0, read: 0 };

	constructor(spawn: () => Worker) {
		this.thread = new AnsweringThread({
			name: "The graph-search thread",
			spawn,
			idOf: (reply) => reply.request,
			// A new thread views again what the lost one held, before anything else is asked of it.
			onStart: (worker) => {
				for (const [graph, description] of this.held) worker.postMessage({ graph, op: "view", request: 0, description } satisfies GraphRequest);
			},
		});
	}

	/** Views the generation's graph on the thread; `owner` holds the handle, and the graph is let go once `owner` is collected. */
	async view(owner: object, description: GraphDescription): Promise<ViewedGraphHandle> {
		const graph = ++this.nextGraph;
		const reply = await this.ask((request) => ({ graph, op: "view", request, description }));
		if (!("viewed" in reply)) throw new Error("The graph-search thread answered a view with something else");
		this.held.set(graph, description);
		this.released.register(owner, graph);
		return { graph };
	}

	/** The graph's best `limit` live keys for `query` by exact similarity, of `candidates` asked of the graph and `rescored` rescored. */
	async search(handle: ViewedGraphHandle, query: Float32Array, candidates: number, rescored: number, limit: number): Promise<GraphHits> {
		const reply = await this.ask((request) => ({ graph: handle.graph, op: "search", request, query, candidates, rescored, limit }));
		if (!("keys" in reply)) throw new Error("The graph-search thread answered a search without keys");
		this.searches++;
		if (reply.byColumns) this.columnScans++;
		this.columnBlocks.resident += reply.columnBlocks.resident;
		this.columnBlocks.read += reply.columnBlocks.read;
		return reply;
	}

	/** Starts the thread ahead of its first view (a process holding index files of large sources starts it at once). */
	start(): void {
		this.thread.start();
	}

	close(): Promise<void> {
		return this.thread.close();
	}

	private release(graph: number): void {
		if (!this.held.delete(graph)) return;
		this.thread.tell({ graph, op: "close" } satisfies GraphRequest);
	}

	private async ask(request: (id: number) => GraphRequest): Promise<GraphReply> {
		const reply = await this.thread.ask(request);
		if ("failure" in reply) throw new Error(reply.failure);
		return reply;
	}
}
