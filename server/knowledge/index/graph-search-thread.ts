import type { Worker } from "node:worker_threads";
import type { GraphDescription, GraphHits, GraphReply, GraphRequest } from "./graph-views";

/** A generation's graph viewed on the graph-search thread; when it is no longer reachable, the thread lets the graph go. */
export interface ViewedGraphHandle {
	readonly graph: number;
}

interface Pending {
	resolve(reply: GraphReply): void;
	reject(error: Error): void;
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
	private worker: Worker | null = null;
	private readonly pending = new Map<number, Pending>();
	/** What each held graph was viewed from: viewed again by a new thread. */
	private readonly held = new Map<number, GraphDescription>();
	private nextGraph = 0;
	private nextRequest = 0;
	private closed = false;
	private readonly released = new FinalizationRegistry<number>((graph) => this.release(graph));
	/** Searches answered, and of those, answered by the int8 columns' exact scan; for tests and operators. */
	searches = 0;
	columnScans = 0;

	constructor(private readonly spawn: () => Worker) {}

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
		return reply;
	}

	async close(): Promise<void> {
		this.closed = true;
		const worker = this.worker;
		this.worker = null;
		this.failPending(new Error("The graph-search thread is closed"));
		await worker?.terminate();
	}

	private release(graph: number): void {
		if (!this.held.delete(graph)) return;
		this.worker?.postMessage({ graph, op: "close" } satisfies GraphRequest);
	}

	private ask(request: (id: number) => GraphRequest): Promise<GraphReply> {
		if (this.closed) return Promise.reject(new Error("The graph-search thread is closed"));
		const worker = this.thread();
		const id = ++this.nextRequest;
		return new Promise<GraphReply>((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			// Kept alive only while it owes an answer: an idle thread never holds a finished process open.
			worker.ref();
			worker.postMessage(request(id));
		}).then((reply) => {
			if ("failure" in reply) throw new Error(reply.failure);
			return reply;
		});
	}

	private thread(): Worker {
		if (this.worker) return this.worker;
		const worker = this.spawn();
		this.worker = worker;
		worker.unref();
		worker.on("message", (reply: GraphReply) => {
			const pending = this.pending.get(reply.request);
			if (!pending) return;
			this.pending.delete(reply.request);
			if (this.pending.size === 0) worker.unref();
			pending.resolve(reply);
		});
		const lost = (error: Error) => {
			if (this.worker !== worker) return;
			this.worker = null;
			this.failPending(error);
		};
		worker.on("error", lost);
		worker.on("exit", (code) => lost(new Error(`The graph-search thread stopped (exit code ${code})`)));
		// A new thread views again what the lost one held, before anything else is asked of it.
		for (const [graph, description] of this.held) worker.postMessage({ graph, op: "view", request: 0, description } satisfies GraphRequest);
		return worker;
	}

	private failPending(error: Error): void {
		const pending = [...this.pending.values()];
		this.pending.clear();
		for (const { reject } of pending) reject(error);
	}
}
