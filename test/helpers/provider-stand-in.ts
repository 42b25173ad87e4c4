import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

/**
 * A local stand-in for a model provider, speaking OpenAI's or Mistral's real wire format:
 * POST /v1/chat/completions answered as JSON or as `data: {...}\n\n` SSE chunks ending in
 * `data: [DONE]` (usage in the final chunk), and their real error bodies. Each test scripts the
 * answers it needs; the stand-in records every request and when the client hung up.
 */
export type Dialect = "openai" | "mistral";

export type ScriptedAnswer =
	/** A normal completion, streamed when the request asked for it. */
	| {
			kind: "completion";
			content?: string | string[];
			/**
			 * Calls the model asks for (finish_reason then defaults to `tool_calls`). Sent as each real
			 * API does: OpenAI streams each call's id and name first, then its arguments in pieces, keyed
			 * by `index`; Mistral sends each call whole in one chunk; both put them in `message.tool_calls`
			 * when not streaming. `arguments` as an object is sent as its JSON text.
			 */
			toolCalls?: { id?: string; name: string; arguments: string | Record<string, unknown> }[];
			finishReason?: string;
			usage?: { prompt_tokens: number; completion_tokens: number };
			/** Before the status line. */
			delayMs?: number;
			/** Before the status line: answer only once this settles (a test holds a request in flight, then lets it go). */
			holdUntil?: Promise<unknown>;
			/** Between stream chunks. */
			chunkDelayMs?: number;
			/** Streaming: after this many content chunks, reset the connection. */
			failAfterChunks?: number;
			/** Streaming: after this many content chunks, go silent and keep the connection open. */
			hangAfterChunks?: number;
	  }
	| { kind: "error"; status: number; message?: string; type?: string; code?: string | null; headers?: Record<string, string>; delayMs?: number }
	| { kind: "raw"; status: number; body: string; headers?: Record<string, string> }
	/** A redirect to `location` (a provider never sends one; an address a tenant aimed might). */
	| { kind: "redirect"; status: 301 | 302 | 303 | 307 | 308; location: string }
	/** Reset the connection without answering. */
	| { kind: "reset" }
	/** Never answer. */
	| { kind: "hang" };

export interface RecordedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	body: Record<string, unknown>;
	receivedAt: number;
	/** When the client closed the connection before we finished answering. */
	clientClosedAt?: number;
}

export interface ProviderStandIn {
	/** Base URL in OpenAI's convention, ending in /v1. */
	baseUrl: string;
	origin: string;
	requests: RecordedRequest[];
	/** TCP connections accepted so far (a refused call must open none). */
	readonly connections: number;
	/** Answers for the next requests, in order; once used up, `fallback` answers. */
	script(...answers: ScriptedAnswer[]): void;
	fallback: ScriptedAnswer;
	/** Answers by request (after the script, before the fallback): concurrent callers get answers that depend on what they asked, not on arrival order. */
	responder: ((request: RecordedRequest) => ScriptedAnswer | undefined) | null;
	waitForClientClose(request: RecordedRequest, timeoutMs?: number): Promise<number>;
	/** Resolves with the next request the stand-in receives (already received ones do not count). */
	nextRequest(): Promise<RecordedRequest>;
	reset(): void;
	close(): Promise<void>;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** `host`: a loopback address other than 127.0.0.1 stands for an internal service (egress tests). */
export async function startProviderStandIn(options: { dialect?: Dialect; host?: string } = {}): Promise<ProviderStandIn> {
	const dialect = options.dialect ?? "openai";
	let connections = 0;
	let queue: ScriptedAnswer[] = [];
	const requests: RecordedRequest[] = [];
	const arrivals = new EventEmitter();
	const standIn: ProviderStandIn = {
		baseUrl: "",
		origin: "",
		requests,
		get connections() {
			return connections;
		},
		fallback: { kind: "completion", content: "Hello from the stand-in" },
		responder: null,
		script: (...answers) => {
			queue.push(...answers);
		},
		waitForClientClose: async (request, timeoutMs = 5000) => {
			const deadline = Date.now() + timeoutMs;
			while (request.clientClosedAt === undefined) {
				if (Date.now() > deadline) throw new Error("client never closed the connection");
				await sleep(10);
			}
			return request.clientClosedAt;
		},
		nextRequest: () => once(arrivals, "request").then(([recorded]) => recorded as RecordedRequest),
		reset: () => {
			queue = [];
			standIn.responder = null;
			requests.length = 0;
		},
		close: () => loopback.close(),
	};

	const server: Server = createServer(async (request, response) => {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const text = Buffer.concat(chunks).toString("utf8");
		const recorded: RecordedRequest = {
			method: request.method ?? "",
			path: request.url ?? "",
			headers: request.headers,
			body: text ? JSON.parse(text) : {},
			receivedAt: Date.now(),
		};
		requests.push(recorded);
		arrivals.emit("request", recorded);
		response.once("close", () => {
			if (!response.writableFinished) recorded.clientClosedAt = Date.now();
		});
		const answer = queue.shift() ?? standIn.responder?.(recorded) ?? standIn.fallback;
		await answerWith(dialect, answer, recorded, request, response);
	});
	server.on("connection", () => {
		connections += 1;
	});
	const loopback = await listenOnLoopback(server, options.host);
	standIn.origin = loopback.origin;
	standIn.baseUrl = `${standIn.origin}/v1`;
	return standIn;
}

function errorBody(dialect: Dialect, answer: Extract<ScriptedAnswer, { kind: "error" }>): unknown {
	const message = answer.message ?? `Stand-in error ${answer.status}`;
	if (dialect === "mistral") return { object: "error", message, type: answer.type ?? "invalid_request_error", param: null, code: answer.code ?? String(answer.status) };
	return { error: { message, type: answer.type ?? "invalid_request_error", param: null, code: answer.code ?? null } };
}

async function answerWith(dialect: Dialect, answer: ScriptedAnswer, recorded: RecordedRequest, request: IncomingMessage, response: ServerResponse) {
	const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
	const model = String(recorded.body.model ?? "unknown");
	const created = Math.floor(Date.now() / 1000);
	switch (answer.kind) {
		case "reset":
			request.socket.destroy();
			return;
		case "hang":
			return;
		case "raw":
			response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
			response.end(answer.body);
			return;
		case "redirect":
			response.writeHead(answer.status, { location: answer.location, "content-length": "0" });
			response.end();
			return;
		case "error":
			if (answer.delayMs) await sleep(answer.delayMs);
			response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
			response.end(JSON.stringify(errorBody(dialect, answer)));
			return;
		case "completion": {
			if (answer.holdUntil) await answer.holdUntil;
			if (answer.delayMs) await sleep(answer.delayMs);
			if (response.destroyed) return;
			const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
				id: call.id ?? toolCallId(dialect, index),
				name: call.name,
				arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
			}));
			const pieces = Array.isArray(answer.content) ? answer.content : answer.content !== undefined ? [answer.content] : toolCalls.length > 0 ? [] : ["Hello from the stand-in"];
			const usage = answer.usage ?? { prompt_tokens: 11, completion_tokens: pieces.length + toolCalls.length };
			const wireUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
			const finishReason = answer.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
			const wireToolCalls = toolCalls.map((call, index) => ({
				id: call.id,
				type: "function",
				function: { name: call.name, arguments: call.arguments },
				...(dialect === "mistral" ? { index } : {}),
			}));
			if (recorded.body.stream !== true) {
				response.writeHead(200, { "content-type": "application/json" });
				response.end(
					JSON.stringify({
						id,
						object: "chat.completion",
						created,
						model,
						choices: [
							{
								index: 0,
								message: {
									role: "assistant",
									// OpenAI sends null content beside tool calls; Mistral an empty string.
									content: toolCalls.length > 0 && pieces.length === 0 ? (dialect === "mistral" ? "" : null) : pieces.join(""),
									...(toolCalls.length > 0 ? { tool_calls: wireToolCalls } : {}),
								},
								finish_reason: finishReason,
								logprobs: null,
							},
						],
						usage: wireUsage,
					}),
				);
				return;
			}
			response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
			const send = (payload: unknown) => response.write(`data: ${JSON.stringify(payload)}\n\n`);
			const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
				id,
				object: "chat.completion.chunk",
				created,
				model,
				choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
				...extra,
			});
			for (const [index, piece] of pieces.entries()) {
				if (answer.failAfterChunks !== undefined && index >= answer.failAfterChunks) {
					// Let the chunks already written leave the socket before cutting it.
					await sleep(50);
					request.socket.destroy();
					return;
				}
				if (answer.hangAfterChunks !== undefined && index >= answer.hangAfterChunks) return;
				if (index > 0 && answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
				if (response.destroyed) return;
				send(chunk(index === 0 ? { role: "assistant", content: piece } : { content: piece }, null));
			}
			if (toolCalls.length > 0) {
				if (dialect === "mistral") {
					send(chunk({ ...(pieces.length === 0 ? { role: "assistant" } : {}), content: "", tool_calls: wireToolCalls }, null));
				} else {
					for (const [index, call] of toolCalls.entries()) {
						const first = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
						send(chunk({ ...(pieces.length === 0 && index === 0 ? { role: "assistant", content: null } : {}), tool_calls: [first] }, null));
						for (const part of argumentPieces(call.arguments)) {
							if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
							if (response.destroyed) return;
							send(chunk({ tool_calls: [{ index, function: { arguments: part } }] }, null));
						}
					}
				}
			}
			if (dialect === "mistral") {
				// Mistral sends usage unasked, on the chunk that carries finish_reason.
				send(chunk({ content: "" }, finishReason, { usage: wireUsage }));
			} else {
				send(chunk({}, finishReason));
				const options = recorded.body.stream_options as { include_usage?: boolean } | undefined;
				if (options?.include_usage) send({ id, object: "chat.completion.chunk", created, model, choices: [], usage: wireUsage });
			}
			response.end("data: [DONE]\n\n");
			return;
		}
	}
}

/** Ids shaped like each API's: OpenAI `call_` and 24 characters, Mistral 9 alphanumerics. */
function toolCallId(dialect: Dialect, index: number): string {
	const random = Math.random().toString(36).slice(2, 10);
	return dialect === "mistral" ? `${random}${index}`.slice(0, 9).padEnd(9, "0") : `call_${random}${index}`;
}

/** Argument text in the small pieces OpenAI streams it in. */
function argumentPieces(text: string): string[] {
	const pieces: string[] = [];
	for (let start = 0; start < text.length; start += 7) pieces.push(text.slice(start, start + 7));
	return pieces;
}

/** A port nothing listens on: connecting to it is refused. */
export async function refusedPortUrl(): Promise<string> {
	const { origin, close } = await listenOnLoopback(createServer());
	await close();
	return `${origin}/v1`;
}

/** Splits an SSE body into its frames; comments are kept as `{event: ":comment"}`. */
export function parseSseFrames(text: string): { event: string; data: unknown }[] {
	return text
		.split("\n\n")
		.filter((frame) => frame.trim() !== "")
		.map((frame) => {
			if (frame.startsWith(":")) return { event: ":comment", data: frame.slice(1).trim() };
			const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
			const data = /^data: (.*)$/m.exec(frame)?.[1];
			return { event, data: data === undefined ? undefined : JSON.parse(data) };
		});
}
