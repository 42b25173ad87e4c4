/**
 * Server-Sent Events for the streaming endpoints (spec, Events), shaped after openai-node's
 * core/streaming.ts: a `Stream` is an AsyncIterable of typed events over the response body.
 *
 *   for await (const event of stream) if (event.event === "delta") process.stdout.write(event.data.content);
 *
 * Parsing follows the WHATWG HTML "event stream" interpretation: lines end in LF, CR or CRLF
 * (possibly split across chunks), `:` starts a comment (keep-alives), a blank line dispatches.
 */
import { GenerationStreamError, PlatformError } from "./errors.js";
import type { FinishReason, ServedAssistant, StreamDone, StreamError, StreamToolCall, StreamToolResult, Usage } from "./generated/api.js";
import { traceIdOf } from "./core/api-promise.js";
import { transportError } from "./core/request.js";

/** One dispatched event of an event stream, before its data is interpreted. */
export interface ServerSentEvent {
	/** `message` when the frame has no `event:` line. */
	event: string;
	/** The `data:` lines joined with "\n". */
	data: string;
	/** The last `id:` seen, if any. */
	id: string | undefined;
}

/**
 * The events of a generation stream: zero or more `delta`, then `usage`, then `done`; or a terminal
 * `error`. An assistant with tools also sends `tool_call` and `tool_result` between deltas, one
 * pair per call the server runs for the model. Events with other names are skipped (spec, Events, rule 1), so the union stays closed and
 * `event.event === "delta"` narrows `event.data`.
 */
export type StreamEvent =
	| { event: "delta"; data: { content: string } }
	| { event: "tool_call"; data: StreamToolCall }
	| { event: "tool_result"; data: StreamToolResult }
	| { event: "usage"; data: Usage }
	| { event: "done"; data: StreamDone }
	| { event: "error"; data: StreamError };

const KNOWN_EVENTS: ReadonlySet<string> = new Set<StreamEvent["event"]>(["delta", "tool_call", "tool_result", "usage", "done", "error"]);

/** Splits text into lines on LF, CR or CRLF, holding back a CR that ends a chunk (its LF may follow). */
class LineDecoder {
	private buffer = "";

	push(text: string): string[] {
		const buffer = this.buffer + text;
		const lines: string[] = [];
		let start = 0;
		for (let index = 0; index < buffer.length; index++) {
			const char = buffer[index];
			if (char === "\n") {
				lines.push(buffer.slice(start, index));
				start = index + 1;
			} else if (char === "\r") {
				if (index + 1 === buffer.length) break;
				lines.push(buffer.slice(start, index));
				if (buffer[index + 1] === "\n") index++;
				start = index + 1;
			}
		}
		this.buffer = buffer.slice(start);
		return lines;
	}

	/** At the end of the stream a held-back CR ends its line. */
	flush(): string[] {
		const rest = this.buffer;
		this.buffer = "";
		if (rest.endsWith("\r")) return [rest.slice(0, -1)];
		return rest.length > 0 ? [rest] : [];
	}
}

/** Parses an event-stream body into its events. An unterminated last event is discarded, as the WHATWG rules say. */
export async function* parseServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	const lines = new LineDecoder();
	let eventName = "";
	let data: string[] = [];
	let lastEventId: string | undefined;

	function* interpret(line: string): Generator<ServerSentEvent> {
		if (line === "") {
			if (data.length > 0) yield { event: eventName || "message", data: data.join("\n"), id: lastEventId };
			eventName = "";
			data = [];
			return;
		}
		if (line.startsWith(":")) return;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		if (field === "event") eventName = value;
		else if (field === "data") data.push(value);
		else if (field === "id" && !value.includes("\u0000")) lastEventId = value;
		// `retry` and unknown fields are ignored.
	}

	let finished = false;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			for (const line of lines.push(decoder.decode(value, { stream: true }))) yield* interpret(line);
		}
		for (const line of lines.push(decoder.decode())) yield* interpret(line);
		for (const line of lines.flush()) yield* interpret(line);
		finished = true;
	} finally {
		// Leaving early (break, abort, error) cancels the body, which closes the connection.
		if (!finished) await reader.cancel().catch(() => {});
		reader.releaseLock();
	}
}

/** Interprets the data of known events as JSON and skips the others. */
export async function* parseStreamEvents(events: AsyncIterable<ServerSentEvent>): AsyncGenerator<StreamEvent> {
	for await (const { event, data } of events) {
		if (!KNOWN_EVENTS.has(event)) continue;
		let payload: unknown;
		try {
			payload = JSON.parse(data);
		} catch (cause) {
			throw new PlatformError(`Malformed data in a \`${event}\` stream event.`, { cause });
		}
		yield { event, data: payload } as StreamEvent;
	}
}

/** What a finished stream amounts to. */
export interface StreamResult {
	/** The `delta` contents, concatenated in order. */
	text: string;
	/** From the `done` event; undefined if the stream ended without one. */
	finishReason: FinishReason | undefined;
	/** From the `usage` event. */
	usage: Usage | undefined;
	/** From the `done` event: the trace recording the generation. */
	traceId: string | undefined;
	/** From the `done` event of a deployed assistant's stream: the published version that answered, and where. */
	assistant: ServedAssistant | undefined;
	/** From the `tool_call` and `tool_result` events: each call the server ran, with how it ended. */
	toolCalls: (StreamToolCall & { ok?: boolean; error?: string })[];
}

/** Reads events to the end; a terminal `error` event is thrown as GenerationStreamError. */
export async function collectStream(events: AsyncIterable<StreamEvent>): Promise<StreamResult> {
	const result: StreamResult = { text: "", finishReason: undefined, usage: undefined, traceId: undefined, assistant: undefined, toolCalls: [] };
	for await (const event of events) {
		if (event.event === "delta") result.text += event.data.content;
		else if (event.event === "tool_call") result.toolCalls.push({ ...event.data });
		else if (event.event === "tool_result") {
			const call = result.toolCalls.find((candidate) => candidate.id === event.data.id);
			if (call) Object.assign(call, { ok: event.data.ok }, event.data.error === undefined ? {} : { error: event.data.error });
		}
		else if (event.event === "usage") result.usage = event.data;
		else if (event.event === "done") {
			result.finishReason = event.data.finishReason;
			result.traceId = event.data.traceId;
			result.assistant = event.data.assistant;
		} else if (event.event === "error") throw new GenerationStreamError(event.data);
	}
	return result;
}

/**
 * An open generation stream. Iterate it once; `abort()` (or the request's `signal`) cancels the
 * generation, and leaving a `for await` loop early does the same. A stream that is never read keeps
 * its connection open until aborted.
 */
export class Stream implements AsyncIterable<StreamEvent> {
	private consumed = false;

	constructor(
		readonly response: Response,
		/** Aborting it cancels the request; linked to the caller's signal. */
		readonly controller: AbortController,
		private readonly signal: AbortSignal,
	) {}

	/** The `X-Request-Id` of the streaming response. */
	get requestId(): string | undefined {
		return this.response.headers.get("x-request-id") ?? undefined;
	}

	/** The `X-Trace-Id` of the streaming response: the trace recording this generation, known before the first event. */
	get traceId(): string | undefined {
		return traceIdOf(this.response.headers);
	}

	/** On a deployed assistant's stream, the published version that answers (`X-Assistant-Version`), known before the first event. */
	get assistantVersion(): number | undefined {
		const version = this.response.headers.get("x-assistant-version");
		return version === null ? undefined : Number(version);
	}

	/** On a deployed assistant's stream, the environment whose deployment serves it (`X-Assistant-Environment`). */
	get assistantEnvironment(): string | undefined {
		return this.response.headers.get("x-assistant-environment") ?? undefined;
	}

	async *[Symbol.asyncIterator](): AsyncGenerator<StreamEvent> {
		if (this.consumed) throw new PlatformError("A stream can be iterated only once.");
		this.consumed = true;
		const body = this.response.body;
		if (!body) throw new PlatformError("The streaming response has no body.");
		let finished = false;
		try {
			yield* parseStreamEvents(parseServerSentEvents(body));
			finished = true;
		} catch (cause) {
			// Spec, Events, rule 2: transport failures are errors of the SDK, not events.
			throw transportError(cause, this.signal, false);
		} finally {
			if (!finished) this.controller.abort();
		}
	}

	abort(): void {
		this.controller.abort();
	}

	/** Reads the stream to the end; throws GenerationStreamError on a terminal `error` event. */
	finalResult(): Promise<StreamResult> {
		return collectStream(this);
	}

	/** The generated text; throws GenerationStreamError on a terminal `error` event. */
	async text(): Promise<string> {
		return (await this.finalResult()).text;
	}
}
