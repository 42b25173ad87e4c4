import { type ChildProcess, fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DocumentExtension } from "../../../contract/schemas/knowledge";
import type { Logger } from "../../shared/logger";
import type { Chunk } from "../chunk/chunk-document";
import { DEFAULT_PARSE_LIMITS, IngestionError, type ParseLimits } from "./parsed-document";

/** What parsing a document may cost (KNOWLEDGE_PARSER_* and KNOWLEDGE_PARSE_*, docs/knowledge.md). */
export interface ParsingOptions {
	/** Parser processes at most; each parses one document at a time. */
	processes: number;
	/** A parser process's memory cap: its V8 heap limit and the resident size it is killed past. */
	memoryMegabytes: number;
	/** Wall-clock budget of one document's parse and chunk; past it the process is killed. */
	timeoutSeconds: number;
	/** Further attempts after a parse that killed or outlived its process, before the document fails. */
	retries: number;
	limits: ParseLimits;
}

export const DEFAULT_PARSING_OPTIONS: ParsingOptions = {
	processes: 2,
	memoryMegabytes: 512,
	timeoutSeconds: 60,
	retries: 2,
	limits: DEFAULT_PARSE_LIMITS,
};

/** A parser process's answer: the chunks, or the reason the document cannot be parsed. */
export type ParseReply = { id: number; chunks: Chunk[] } | { id: number; failure: string; unexpected?: string };
/** Sent once by a parser process when it is ready for documents. */
export type ParserMessage = ParseReply | { ready: true };

/**
 * The parse ended with its process: killed past the wall-clock or memory budget, or dead of its
 * own accord (V8's heap limit, a crash, a kill from outside). The document may be poison: it is
 * retried a few times, then fails with this reason.
 */
export class ParserStoppedError extends IngestionError {
	constructor(message: string) {
		super(message);
		this.name = "ParserStoppedError";
	}
}

/** Where the parser entry is: beside this file under tsx, `parser.js` at the root of the bundle otherwise. */
export function parserEntryFor(moduleUrl: string): { file: string; execArgv: string[] } {
	const here = fileURLToPath(moduleUrl);
	if (here.endsWith(".ts")) return { file: join(dirname(here), "parser-process.ts"), execArgv: ["--import", "tsx"] };
	// scripts/build.ts puts shared code in dist/chunks/ and entry points in dist/.
	const directory = dirname(here);
	return { file: join(basename(directory) === "chunks" ? dirname(directory) : directory, "parser.js"), execArgv: [] };
}

interface Task {
	bytes: Uint8Array;
	extension: DocumentExtension;
	resolve(chunks: Chunk[]): void;
	reject(error: Error): void;
}

/** How often a busy process's resident memory is read (Linux /proc); a bomb overshoots the cap by at most what it allocates in this time. */
const MEMORY_POLL_MS = 50;
/** The end of a parser's stderr kept to explain its death (V8 prints why it aborted). */
const STDERR_TAIL = 4096;

class ParserProcess {
	readonly child: ChildProcess;
	task: Task | null = null;
	/** The process has loaded its modules; until then its first document waits, budget not running. */
	ready = false;
	private pendingStart: (() => void) | null = null;
	/** Why the pool killed it, when it did. */
	killedBecause: string | null = null;
	stderr = "";
	private timers: NodeJS.Timeout[] = [];

	constructor(entry: { file: string; execArgv: string[] }, memoryMegabytes: number) {
		this.child = fork(entry.file, [], {
			execArgv: [...entry.execArgv, `--max-old-space-size=${memoryMegabytes}`],
			serialization: "advanced",
			stdio: ["ignore", "ignore", "pipe", "ipc"],
		});
		this.child.stderr?.setEncoding("utf8");
		this.child.stderr?.on("data", (text: string) => {
			this.stderr = (this.stderr + text).slice(-STDERR_TAIL);
		});
		this.idle();
	}

	/** An idle process keeps nothing alive: a process that is done with its work can exit. */
	idle(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers = [];
		this.task = null;
		this.child.unref();
		this.child.channel?.unref();
	}

	markReady(): void {
		this.ready = true;
		const start = this.pendingStart;
		this.pendingStart = null;
		start?.();
	}

	start(task: Task, id: number, limits: ParseLimits, budget: { timeoutMs: number; memoryBytes: number }, onLimit: (reason: string) => void): void {
		this.task = task;
		this.child.ref();
		this.child.channel?.ref();
		if (!this.ready) {
			this.pendingStart = () => this.send(task, id, limits, budget, onLimit);
			return;
		}
		this.send(task, id, limits, budget, onLimit);
	}

	private send(task: Task, id: number, limits: ParseLimits, budget: { timeoutMs: number; memoryBytes: number }, onLimit: (reason: string) => void): void {
		this.timers.push(setTimeout(() => onLimit("timeout"), budget.timeoutMs));
		const pid = this.child.pid;
		if (pid !== undefined && process.platform === "linux") {
			const poll = setInterval(() => {
				void residentBytes(pid).then((bytes) => {
					if (bytes !== null && bytes > budget.memoryBytes && this.task === task) onLimit("memory");
				});
			}, MEMORY_POLL_MS);
			this.timers.push(poll);
		}
		this.child.send({ id, bytes: task.bytes, extension: task.extension, limits });
	}

	kill(reason: string): void {
		this.killedBecause ??= reason;
		this.child.kill("SIGKILL");
	}
}

async function residentBytes(pid: number): Promise<number | null> {
	try {
		const status = await readFile(`/proc/${pid}/status`, "utf8");
		const match = /VmRSS:\s+(\d+) kB/.exec(status);
		return match ? Number(match[1]) * 1024 : null;
	} catch {
		return null;
	}
}

/**
 * A small pool of persistent parser processes: documents are parsed and chunked off the API's
 * event loop, each under a memory cap (the process's heap limit, and its resident size watched
 * from here), a wall-clock budget and output budgets. Processes are forked on first need, reused
 * for every later document (a fork costs far more than a parse of a small document), and replaced
 * when one dies or is killed; the pool never kills a process that is not over a budget.
 */
export class ParserPool {
	private readonly processes: ParserProcess[] = [];
	private readonly queue: Task[] = [];
	private nextId = 1;
	private closed = false;

	constructor(
		private readonly options: ParsingOptions,
		private readonly logger: Logger,
		private readonly entry = parserEntryFor(import.meta.url),
	) {}

	/** Chunks of the document, or an IngestionError with the reason (ParserStoppedError when its process ended). */
	parseAndChunk(bytes: Uint8Array, extension: DocumentExtension): Promise<Chunk[]> {
		if (this.closed) return Promise.reject(new ParserStoppedError("The parser pool closed before the document was parsed"));
		return new Promise<Chunk[]>((resolve, reject) => {
			this.queue.push({ bytes, extension, resolve, reject });
			this.dispatch();
		});
	}

	/** Process ids of the parsers working on a document now (tests kill one mid-document). */
	busyProcessIds(): number[] {
		return this.processes.filter((parser) => parser.task && parser.child.pid !== undefined).map((parser) => parser.child.pid as number);
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const task of this.queue.splice(0)) task.reject(new ParserStoppedError("The parser pool closed before the document was parsed"));
		await Promise.all(
			this.processes.map((parser) => {
				if (parser.child.exitCode !== null || parser.child.signalCode !== null) return undefined;
				const exited = new Promise((resolve) => parser.child.once("exit", resolve));
				parser.kill("closed");
				return exited;
			}),
		);
	}

	private dispatch(): void {
		while (this.queue.length > 0 && !this.closed) {
			let parser = this.processes.find((candidate) => candidate.task === null);
			if (!parser) {
				if (this.processes.length >= this.options.processes) return;
				parser = this.spawn();
			}
			this.run(parser, this.queue.shift() as Task);
		}
	}

	private spawn(): ParserProcess {
		const parser = new ParserProcess(this.entry, this.options.memoryMegabytes);
		this.processes.push(parser);
		parser.child.on("message", (message: ParserMessage) => {
			if ("ready" in message) {
				parser.markReady();
				return;
			}
			const reply = message;
			const task = parser.task;
			if (!task) return;
			parser.idle();
			if ("chunks" in reply) task.resolve(reply.chunks);
			else {
				if (reply.unexpected) this.logger.error("parser failed unexpectedly", { error: reply.unexpected });
				task.reject(new IngestionError(reply.failure));
			}
			this.dispatch();
		});
		parser.child.on("error", (error) => this.logger.error("parser process error", { error }));
		parser.child.on("exit", (code, signal) => {
			this.processes.splice(this.processes.indexOf(parser), 1);
			const task = parser.task;
			parser.idle();
			if (task) {
				const reason = this.explainExit(parser, code, signal);
				if (parser.killedBecause !== "timeout" && parser.killedBecause !== "memory") {
					this.logger.warn("parser process stopped mid-document", { code, signal, stderr: parser.stderr.trim() || undefined });
				}
				task.reject(new ParserStoppedError(reason));
			}
			this.dispatch();
		});
		return parser;
	}

	private run(parser: ParserProcess, task: Task): void {
		const id = this.nextId++;
		parser.start(
			task,
			id,
			this.options.limits,
			{ timeoutMs: this.options.timeoutSeconds * 1000, memoryBytes: this.options.memoryMegabytes * 1024 ** 2 },
			(reason) => parser.kill(reason),
		);
	}

	private explainExit(parser: ParserProcess, code: number | null, signal: NodeJS.Signals | null): string {
		if (parser.killedBecause === "timeout") return `Parsing took longer than ${this.options.timeoutSeconds} s`;
		if (parser.killedBecause === "memory" || /heap out of memory|Reached heap limit|Allocation failed/i.test(parser.stderr)) {
			return `Parsing needed more than ${this.options.memoryMegabytes} MB of memory`;
		}
		return `The parser stopped while reading the document (${signal ? `signal ${signal}` : `exit code ${code}`})`;
	}
}
