import type { Transferable, Worker } from "node:worker_threads";

interface Pending<Reply> {
	resolve(reply: Reply): void;
	reject(error: Error): void;
}

export interface AnsweringThreadOptions<Reply> {
	/** In errors: "the graph-search thread". */
	name: string;
	spawn(): Worker;
	/** The id of the question a reply answers. */
	idOf(reply: Reply): number;
	/** Sent to a new thread before any question (what a lost thread held, to hold again). */
	onStart?(worker: Worker): void;
}

/**
 * A thread asked questions by message and answering each with a message that names it: the
 * bookkeeping the graph-search thread and the body thread share. Started with the first question
 * and again after it dies (the questions it owed fail); kept alive only while it owes an answer, so
 * an idle thread never holds a finished process open.
 */
export class AnsweringThread<Request, Reply> {
	private worker: Worker | null = null;
	private readonly pending = new Map<number, Pending<Reply>>();
	private nextId = 0;
	private closed = false;

	constructor(private readonly options: AnsweringThreadOptions<Reply>) {}

	/** `request(id)` sent to the thread (`transfer`: buffers moved, not copied); resolves with the reply naming `id`. */
	ask(request: (id: number) => Request, transfer: Transferable[] = []): Promise<Reply> {
		if (this.closed) return Promise.reject(new Error(`${this.options.name} is closed`));
		const worker = this.thread();
		const id = ++this.nextId;
		return new Promise<Reply>((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			worker.ref();
			worker.postMessage(request(id), transfer);
		});
	}

	/** Starts the thread now if it is not running: a question soon after need not wait for its start (a tenth of a second or more). */
	start(): void {
		if (!this.closed) this.thread();
	}

	/** Sent to the running thread, if any, expecting no answer. */
	tell(message: Request): void {
		this.worker?.postMessage(message);
	}

	async close(): Promise<void> {
		this.closed = true;
		const worker = this.worker;
		this.worker = null;
		this.failPending(new Error(`${this.options.name} is closed`));
		await worker?.terminate();
	}

	private thread(): Worker {
		if (this.worker) return this.worker;
		const worker = this.options.spawn();
		this.worker = worker;
		worker.unref();
		worker.on("message", (reply: Reply) => {
			const id = this.options.idOf(reply);
			const pending = this.pending.get(id);
			if (!pending) return;
			this.pending.delete(id);
			if (this.pending.size === 0) worker.unref();
			pending.resolve(reply);
		});
		const lost = (error: Error) => {
			if (this.worker !== worker) return;
			this.worker = null;
			this.failPending(error);
		};
		worker.on("error", lost);
		worker.on("exit", (code) => lost(new Error(`${this.options.name} stopped (exit code ${code})`)));
		this.options.onStart?.(worker);
		return worker;
	}

	private failPending(error: Error): void {
		const pending = [...this.pending.values()];
		this.pending.clear();
		for (const { reject } of pending) reject(error);
	}
}
