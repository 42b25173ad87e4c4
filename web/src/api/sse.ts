import { ApiError, currentCsrfToken } from "./management-client";

/** One Server-Sent Event: its name and its data, parsed from JSON. */
export interface SseEvent {
	event: string;
	data: unknown;
}

/**
 * The events of a text/event-stream body as they arrive (WHATWG HTML, Server-sent events): frames
 * end at a blank line, `event:` names one (default `message`), `data:` lines are joined with
 * newlines, comment lines (`: keep-alive`) are skipped. Data that is not JSON is kept as text.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	try {
		for (;;) {
			const { value, done } = await reader.read();
			if (done) break;
			buffer += decoder.decode(value, { stream: true });
			let end = frameEnd(buffer);
			while (end) {
				const event = parseFrame(buffer.slice(0, end.index));
				buffer = buffer.slice(end.index + end.length);
				if (event) yield event;
				end = frameEnd(buffer);
			}
		}
		const last = parseFrame(buffer + decoder.decode());
		if (last) yield last;
	} finally {
		reader.releaseLock();
	}
}

function frameEnd(buffer: string): { index: number; length: number } | undefined {
	const match = /\r?\n\r?\n|\r\r/.exec(buffer);
	return match ? { index: match.index, length: match[0].length } : undefined;
}

function parseFrame(frame: string): SseEvent | undefined {
	let event = "message";
	const data: string[] = [];
	for (const line of frame.split(/\r?\n|\r/)) {
		if (line === "" || line.startsWith(":")) continue;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
		if (field === "event") event = value;
		else if (field === "data") data.push(value);
	}
	if (data.length === 0) return undefined;
	const text = data.join("\n");
	try {
		return { event, data: JSON.parse(text) };
	} catch {
		return { event, data: text };
	}
}

/**
 * POSTs `body` to a management route that answers as Server-Sent Events, with the session's cookie
 * and CSRF token. A refusal before the stream opens is thrown as ApiError carrying the envelope
 * (a 401 sends the person to sign in, as every other call does); aborting `signal` cancels it.
 */
export async function postForEvents(path: string, body: unknown, signal: AbortSignal): Promise<AsyncGenerator<SseEvent>> {
	const token = currentCsrfToken();
	const response = await fetch(path, {
		method: "POST",
		credentials: "same-origin",
		headers: { "content-type": "application/json", accept: "text/event-stream", ...(token ? { "x-csrf-token": token } : {}) },
		body: JSON.stringify(body),
		signal,
	});
	if (!response.ok || !response.body) {
		const envelope = (await response.json().catch(() => ({}))) as { code?: string; message?: string; fields?: { field: string; issue: string }[] };
		throw new ApiError(response.status, envelope.code ?? "INTERNAL_ERROR", envelope.message ?? `The server answered ${response.status}`, envelope.fields);
	}
	return readSseEvents(response.body);
}
