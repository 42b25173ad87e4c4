import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Logger } from "../../../shared/logger";
import { PATTERN_LIMITS, type PatternLimits, re2Flags } from "./tenant-pattern";

/**
 * The thread's code, plain JavaScript evaluated as a script: it runs the same under tsx, vitest and
 * the bundle, with re2js loaded from the path the main thread resolved. It compiles (JavaScript
 * syntax translated to RE2's first: \uXXXX, \u{…}, \cX, [^], named groups), refuses programs past
 * the size limit and texts past what the work bound allows that program, keeps recent programs and
 * refusals (cases share scorers), and answers one request at a time.
 */
const THREAD_SOURCE = `
	"use strict";
	const { parentPort, workerData } = require("node:worker_threads");
	const { RE2JS, RE2JSSyntaxException } = require(workerData.engine);
	const programs = new Map();
	function compile(pattern, flags) {
		const key = flags + ":" + pattern;
		const cached = programs.get(key);
		if (cached) {
			programs.delete(key);
			programs.set(key, cached);
			return cached;
		}
		let compiled;
		try {
			const program = RE2JS.compile(RE2JS.translateRegExp(pattern), flags);
			const size = program.programSize();
			compiled = size <= workerData.maxProgramSize
				? { program }
				: { problem: "The pattern compiles to " + size + " instructions; at most " + workerData.maxProgramSize + " are allowed (a counted repetition such as {500} holds that many copies of what it repeats)" };
		} catch (error) {
			compiled = {
				problem: error instanceof RE2JSSyntaxException
					? "Not a valid regular expression (RE2 syntax): " + error.error + (error.input ? ": " + error.input : "")
					: "The regular expression could not be compiled: " + (error && error.message),
			};
		}
		// Refusals are kept too: a stored pattern that no longer compiles is not compiled again for every case.
		programs.set(key, compiled);
		if (programs.size > workerData.cacheSize) programs.delete(programs.keys().next().value);
		return compiled;
	}
	parentPort.on("message", (request) => {
		let reply;
		try {
			const compiled = compile(request.pattern, request.flags);
			if (compiled.problem !== undefined) {
				reply = { id: request.id, problem: compiled.problem };
			} else if (request.text === undefined) {
				reply = { id: request.id, matched: null };
			} else {
				const size = compiled.program.programSize();
				const readable = Math.floor(workerData.maxWork / size);
				reply = request.text.length > readable
					? { id: request.id, problem: "This pattern compiles to " + size + " instructions, so it is matched against at most " + readable + " characters; the text has " + request.text.length }
					: { id: request.id, matched: compiled.program.test(request.text) };
			}
		} catch (error) {
			reply = { id: request.id, problem: "The regular expression failed: " + (error && error.message) };
		}
		parentPort.postMessage(reply);
	});
`;

/** Compiled programs the thread keeps. */
const PROGRAM_CACHE_SIZE = 256;
/** The thread's heap: RE2's DFA caches its states within a budget of its own; this bounds the rest. */
const THREAD_HEAP_MEGABYTES = 128;

type Reply = { id: number; matched: boolean | null } | { id: number; problem: string };
/** The engine could not answer (its thread died, the process is stopping): nothing is known about the pattern. */
type Unavailable = { unavailable: string };
interface Request {
	id: number;
	pattern: string;
	flags: number;
	text?: string;
	settle(reply: Reply | Unavailable): void;
}

/** A match's outcome: whether the pattern is found in the text, or why it could not be run. */
export type PatternMatch = { matched: boolean } | { problem: string };

/**
 * Runs tenants' regular expressions on RE2 in a thread of its own, so no pattern and no text
 * holds the event loop, whatever they are: RE2 is linear in the text, and the sizes are bounded
 * (PATTERN_LIMITS). Requests queue per lane (a workspace) and are served round-robin across lanes:
 * one workspace's thousands of matches delay another's by at most the match in progress. The
 * thread starts on first use, does not keep the process alive while idle, and is started again
 * if it dies (its heap is capped; the requests it held are answered with the reason).
 */
export class PatternEngine {
	private thread: Worker | null = null;
	private readonly lanes = new Map<string, Request[]>();
	private inFlight: Request | null = null;
	private nextId = 1;
	private closed = false;

	constructor(
		private readonly logger: Logger,
		readonly limits: PatternLimits = PATTERN_LIMITS,
	) {}

	/**
	 * Why the pattern cannot be used (syntax RE2 does not have, a program past the size limit), or
	 * null. Throws when the engine could not tell (that is the server's failure, not the pattern's).
	 */
	async check(lane: string, pattern: string, flags: string): Promise<string | null> {
		if (pattern.length > this.limits.patternLength) return `A pattern may have at most ${this.limits.patternLength} characters`;
		const reply = await this.enqueue(lane, pattern, flags, undefined);
		if ("unavailable" in reply) throw new Error(reply.unavailable);
		return "problem" in reply ? reply.problem : null;
	}

	/** Whether the pattern is found anywhere in the text (JavaScript's RegExp.test), or why it could not be run. */
	async test(lane: string, pattern: string, flags: string, text: string): Promise<PatternMatch> {
		if (pattern.length > this.limits.patternLength) return { problem: `A pattern may have at most ${this.limits.patternLength} characters` };
		if (text.length > this.limits.textLength) {
			return { problem: `The text is ${text.length} characters long; a pattern is matched against at most ${this.limits.textLength}` };
		}
		const reply = await this.enqueue(lane, pattern, flags, text);
		if ("unavailable" in reply) return { problem: reply.unavailable };
		if ("problem" in reply) return { problem: reply.problem };
		return { matched: reply.matched === true };
	}

	/** Stops the thread; requests still queued are answered with the reason. */
	async close(): Promise<void> {
		this.closed = true;
		const pending = [...(this.inFlight ? [this.inFlight] : []), ...[...this.lanes.values()].flat()];
		this.inFlight = null;
		this.lanes.clear();
		for (const request of pending) request.settle({ unavailable: "The server is stopping" });
		const thread = this.thread;
		this.thread = null;
		if (thread) await thread.terminate();
	}

	private enqueue(lane: string, pattern: string, flags: string, text: string | undefined): Promise<Reply | Unavailable> {
		if (this.closed) return Promise.resolve({ unavailable: "The server is stopping" });
		return new Promise((resolve) => {
			const queue = this.lanes.get(lane) ?? [];
			queue.push({ id: this.nextId++, pattern, flags: re2Flags(flags), text, settle: resolve });
			this.lanes.set(lane, queue);
			this.pump();
		});
	}

	/** Sends the next request, taking lanes in turn: the lane served goes to the back of the line. */
	private pump(): void {
		if (this.inFlight || this.closed) return;
		const next = this.lanes.entries().next();
		if (next.done) {
			this.thread?.unref();
			return;
		}
		const [lane, queue] = next.value;
		const request = queue.shift() as Request;
		this.lanes.delete(lane);
		if (queue.length > 0) this.lanes.set(lane, queue);
		this.inFlight = request;
		const thread = this.startedThread();
		thread.ref();
		thread.postMessage({ id: request.id, pattern: request.pattern, flags: request.flags, text: request.text });
	}

	private startedThread(): Worker {
		if (this.thread) return this.thread;
		const thread = new Worker(THREAD_SOURCE, {
			eval: true,
			workerData: { engine: createRequire(import.meta.url).resolve("re2js"), maxProgramSize: this.limits.programSize, maxWork: this.limits.work, cacheSize: PROGRAM_CACHE_SIZE },
			resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MEGABYTES },
			stdout: false,
			stderr: false,
		});
		thread.on("message", (reply: Reply) => {
			const request = this.inFlight;
			if (!request || request.id !== reply.id) return;
			this.inFlight = null;
			request.settle(reply);
			this.pump();
		});
		thread.on("error", (error) => this.logger.warn("the pattern thread failed; it is started again for the next match", { error }));
		thread.on("exit", () => {
			if (this.thread !== thread) return;
			this.thread = null;
			const request = this.inFlight;
			this.inFlight = null;
			request?.settle({ unavailable: "The pattern engine stopped while matching (its thread ran out of memory or failed)" });
			this.pump();
		});
		this.thread = thread;
		return thread;
	}
}
