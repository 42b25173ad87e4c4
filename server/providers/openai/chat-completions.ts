import type { Cancellation } from "../cancellation";
import type { UpstreamHttp, UpstreamResponse } from "../upstream-http";
import { ProviderError } from "../provider-error";
import { abortedFailure, connectionFailure, malformedResponse, providerErrorFromStatus, quoteUpstreamErrorMessage } from "../upstream-errors";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * POST {baseUrl}/chat/completions, answered as JSON or as Server-Sent Events, on the pooled
 * connections of upstream-http.ts.
 *
 * Chat goes over the wire directly rather than through the openai SDK: per call the SDK built and
 * merged header objects, formatted log details and wrapped abort signals, which was the largest
 * single cost of a generation in bench/runtime.ts (the SDK still serves embeddings). The wire
 * format is small and stable, and the tests' stand-in speaks it, error bodies included.
 */
export class ChatCompletionsEndpoint {
	private readonly url: URL;
	private readonly headers: Record<string, string>;

	constructor(
		private readonly upstream: UpstreamHttp,
		private readonly providerName: string,
		private readonly apiKey: string,
		baseUrl: string | null,
	) {
		this.url = new URL(baseUrl ?? DEFAULT_BASE_URL);
		// Appended to the path, so a gateway's query (Azure's ?api-version=) is kept.
		this.url.pathname = `${this.url.pathname.replace(/\/+$/, "")}/chat/completions`;
		this.headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json" };
	}

	/** The completion as parsed JSON; failures are ProviderErrors. */
	async complete(body: object, signal: Cancellation): Promise<unknown> {
		const response = await this.post(body, signal);
		let text: string;
		try {
			text = await response.body.text();
		} catch (error) {
			throw this.failure(error, signal);
		}
		try {
			return JSON.parse(text);
		} catch (error) {
			throw malformedResponse(this.providerName, "invalid JSON", error);
		}
	}

	/** The `data:` payloads of the stream, parsed, until `[DONE]` or the end of the body. */
	async *stream(body: object, signal: Cancellation): AsyncGenerator<unknown, void, undefined> {
		const response = await this.post({ ...body, stream: true }, signal);
		const incoming = response.body;
		incoming.setEncoding("utf8");
		let pending = "";
		try {
			for await (const text of incoming as AsyncIterable<string>) {
				pending += text;
				let boundary = nextEventBoundary(pending);
				while (boundary) {
					const event = parseEvent(pending.slice(0, boundary.start));
					pending = pending.slice(boundary.end);
					if (event) {
						if (event.data === "[DONE]") return;
						yield this.readEventData(event);
					}
					boundary = nextEventBoundary(pending);
				}
			}
		} catch (error) {
			throw this.failure(error, signal);
		} finally {
			// Stopped early (the caller left, or a failure): close the upstream request at once.
			if (!incoming.readableEnded) incoming.destroy();
		}
	}

	private readEventData(event: { name: string; data: string }): unknown {
		let data: unknown;
		try {
			data = JSON.parse(event.data);
		} catch (error) {
			throw malformedResponse(this.providerName, "unreadable stream chunk", error);
		}
		// OpenAI reports a failure after the stream opened as an `error` object (or an `error` event).
		if (event.name === "error" || (data && typeof data === "object" && "error" in data)) {
			const message = quoteUpstreamErrorMessage(data, this.apiKey);
			const detail = message ? `: ${message}` : "";
			throw new ProviderError("server_error", this.providerName, `${this.providerName} reported an error mid-stream${detail}`, { retryable: false });
		}
		return data;
	}

	private async post(body: object, signal: Cancellation): Promise<UpstreamResponse> {
		let response: UpstreamResponse;
		try {
			response = await this.upstream.request(this.url, { method: "POST", headers: this.headers, body: JSON.stringify(body), signal });
		} catch (error) {
			throw this.failure(error, signal);
		}
		if (response.statusCode >= 200 && response.statusCode < 300) return response;
		let errorBody: unknown;
		try {
			errorBody = await readErrorBody(response.body);
		} catch (error) {
			throw this.failure(error, signal);
		}
		const headers = response.headers;
		const header = (name: string) => {
			const value = headers[name];
			return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
		};
		throw providerErrorFromStatus({ providerName: this.providerName, status: response.statusCode, body: errorBody, headers: { get: header }, apiKey: this.apiKey });
	}

	private failure(error: unknown, signal: Cancellation): ProviderError {
		if (error instanceof ProviderError) return error;
		if (signal.aborted) return abortedFailure(this.providerName, error);
		return connectionFailure(this.providerName, error);
	}
}

/** An error body worth reading is a provider's short JSON; past this, whatever answered is not one. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The error body as text, or undefined past MAX_ERROR_BODY_BYTES (read no further, the connection closed). */
async function readErrorBody(body: UpstreamResponse["body"]): Promise<string | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_ERROR_BODY_BYTES) {
			body.destroy();
			return undefined;
		}
		chunks.push(chunk);
	}
	return Buffer.concat(chunks).toString("utf8");
}

/** Events end at a blank line; servers may use \n, \r\n or \r (WHATWG HTML, Server-sent events). */
function nextEventBoundary(text: string): { start: number; end: number } | undefined {
	const match = /\r\n\r\n|\n\n|\r\r/.exec(text);
	return match ? { start: match.index, end: match.index + match[0].length } : undefined;
}

function parseEvent(block: string): { name: string; data: string } | undefined {
	let name = "message";
	const data: string[] = [];
	for (const line of block.split(/\r\n|\n|\r/)) {
		if (line === "" || line.startsWith(":")) continue;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? "" : line.slice(colon + 1);
		if (value.startsWith(" ")) value = value.slice(1);
		if (field === "data") data.push(value);
		else if (field === "event") name = value;
	}
	return data.length > 0 ? { name, data: data.join("\n") } : undefined;
}
