import { Readable } from "node:stream";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TStreamError } from "../../contract/schemas/runtime";
import type { GenerationCaller, GenerationStreamEvent } from "../modules/runtime/run-generation";
import { ProviderError } from "../providers/provider-error";
import { AppError } from "../shared/app-error";

/** Proxies (nginx's default proxy_read_timeout is 60 s) drop silent connections; a comment keeps them open. */
export const KEEP_ALIVE_INTERVAL_MS = 15_000;

/** `event: <name>\ndata: <json>\n\n` (WHATWG HTML, Server-sent events); JSON never contains a raw newline. */
export function formatSseFrame(event: string, data: unknown): string {
	return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Fields the `done` event carries beside finishReason (the trace id, the assistant version that answered). */
export type DoneFields = Record<string, unknown>;

/**
 * How a stream's events are written: this API's frames (`delta`, `usage`, `done`, `error`) by
 * default; the OpenAI-compatible surface writes `chat.completion.chunk` frames instead.
 */
export interface SseEncoder {
	/** The text for one event; "" sends nothing for it (yet). */
	event(event: GenerationStreamEvent): string;
	/** The terminal frame for a failure after the stream opened. */
	error(error: unknown): string;
	/** Written after the last event of a stream that ended normally. */
	end?(): string;
}

/** This API's own frames; `done` carries `done` fields beside finishReason. */
export function platformEncoder(done: DoneFields | undefined): SseEncoder {
	return {
		event: (event) => frameOf(event, done),
		error: (error) => formatSseFrame("error", streamErrorOf(error)),
	};
}

/** The arguments as the model wrote them: a JSON value, or the text itself when it is not JSON. */
function parseToolArguments(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

function frameOf(event: GenerationStreamEvent, done: DoneFields | undefined): string {
	switch (event.type) {
		case "delta":
			return formatSseFrame("delta", { content: event.content });
		case "tool_call":
			return formatSseFrame("tool_call", { id: event.id, name: event.name, arguments: parseToolArguments(event.arguments) });
		case "tool_result":
			return formatSseFrame("tool_result", event.error === undefined ? { id: event.id, name: event.name, ok: event.ok } : { id: event.id, name: event.name, ok: event.ok, error: event.error });
		case "usage":
			return formatSseFrame("usage", { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens });
		case "finish":
			return formatSseFrame("done", done ? { finishReason: event.finishReason, ...done } : { finishReason: event.finishReason });
	}
}

export function streamErrorOf(error: unknown): TStreamError {
	if (error instanceof ProviderError) return { code: error.code, message: error.message, retryable: error.retryable, providerName: error.providerName };
	if (error instanceof AppError) return { code: error.code, message: error.message, retryable: error.status >= 500 };
	return { code: "INTERNAL_ERROR", message: "Internal error while streaming", retryable: true };
}

const KEEP_ALIVE = Symbol("keep-alive");

/** Yields SSE text: every event as soon as it arrives, a `: keep-alive` comment after each silent interval, a terminal `error` frame on failure. */
async function* encodeEvents(
	first: GenerationStreamEvent,
	rest: AsyncIterator<GenerationStreamEvent>,
	keepAliveMs: number,
	onError: (error: unknown) => void,
	encoder: SseEncoder,
): AsyncGenerator<string> {
	const opening = encoder.event(first);
	if (opening) yield opening;
	for (;;) {
		const next = rest.next();
		let result: IteratorResult<GenerationStreamEvent> | typeof KEEP_ALIVE;
		do {
			let timer: NodeJS.Timeout | undefined;
			const silence = new Promise<typeof KEEP_ALIVE>((resolve) => {
				timer = setTimeout(() => resolve(KEEP_ALIVE), keepAliveMs);
			});
			try {
				result = await Promise.race([next, silence]);
			} catch (error) {
				onError(error);
				yield encoder.error(error);
				return;
			} finally {
				clearTimeout(timer);
			}
			if (result === KEEP_ALIVE) yield ": keep-alive\n\n";
		} while (result === KEEP_ALIVE);
		if (result.done) {
			const tail = encoder.end?.();
			if (tail) yield tail;
			return;
		}
		const text = encoder.event(result.value);
		if (text) yield text;
	}
}

/**
 * The client, as a generation sees it: gone when the connection closes before the response was
 * sent in full. `started` runs once the generation reached its provider.
 */
export function clientPresence(response: ServerResponse, started?: () => void): GenerationCaller {
	return {
		started,
		onGone(listener) {
			const onClose = () => {
				if (!response.writableFinished) listener();
			};
			response.once("close", onClose);
			return () => response.off("close", onClose);
		},
	};
}

/**
 * Opens the SSE response once the first upstream event is in hand: failures before it (missing
 * credential, provider 4xx/5xx, exhausted retries, timeout) still get the JSON envelope with the
 * right status (spec, Runtime rule 4), at the cost of sending no bytes until the model starts.
 * Returns the body; the caller pipes it into the response.
 */
export async function openSseStream(
	request: IncomingMessage,
	response: ServerResponse,
	events: AsyncGenerator<GenerationStreamEvent, void, undefined>,
	options: { keepAliveMs?: number; onError?: (error: unknown) => void; done?: DoneFields; encoder?: SseEncoder } = {},
): Promise<Readable> {
	const first = await events.next();
	const firstEvent: GenerationStreamEvent = first.done ? { type: "finish", finishReason: "stop" } : first.value;
	response.setHeader("Content-Type", "text/event-stream");
	response.setHeader("Cache-Control", "no-cache");
	// nginx buffers proxied responses unless told not to; deltas must reach the client one by one.
	response.setHeader("X-Accel-Buffering", "no");
	response.setHeader("Connection", "keep-alive");
	request.socket.setNoDelay(true);
	const body = Readable.from(encodeEvents(firstEvent, events, options.keepAliveMs ?? KEEP_ALIVE_INTERVAL_MS, options.onError ?? (() => {}), options.encoder ?? platformEncoder(options.done)), {
		objectMode: true,
	});
	response.once("close", () => {
		if (!response.writableFinished) {
			body.destroy();
			void events.return(undefined);
		}
	});
	return body;
}
