import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";

/**
 * A `fetch` for provider SDKs built on node:http, because the global fetch (undici) costs far more
 * CPU per call than the call itself against a fast provider: under load a third of the server's
 * profile was undici's Request/AbortSignal/web-stream machinery. The SDKs only need a small part of
 * Response (status, ok, headers.get/entries, text/json, and an async-iterable body for SSE), so
 * that is all this returns; anything unusual (a streamed or multipart request body) falls back to
 * the global fetch, so SDK features we do not call keep working.
 *
 * The agents are per process: one pool of warm connections per provider host, shared by every
 * workspace's client (a new credential must not mean new TLS handshakes). Generous maxSockets,
 * because generations can hold a socket for minutes and a low cap would queue them; lifo reuses
 * the warmest socket and lets the surplus idle out after a burst.
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 1024, maxFreeSockets: 256, scheduling: "lifo" } as const;
const httpAgent = new http.Agent(AGENT_OPTIONS);
const httpsAgent = new https.Agent(AGENT_OPTIONS);

type HeaderSource = NonNullable<RequestInit["headers"]>;

/** The Response headers' read side (a Headers object would parse and copy every header again). */
class ResponseHeaders {
	constructor(private readonly raw: IncomingHttpHeaders) {}

	get(name: string): string | null {
		const value = this.raw[name.toLowerCase()];
		if (value === undefined) return null;
		return Array.isArray(value) ? value.join(", ") : value;
	}

	has(name: string): boolean {
		return this.raw[name.toLowerCase()] !== undefined;
	}

	*entries(): IterableIterator<[string, string]> {
		for (const name of Object.keys(this.raw)) {
			const value = this.get(name);
			if (value !== null) yield [name, value];
		}
	}

	*keys(): IterableIterator<string> {
		for (const [name] of this.entries()) yield name;
	}

	*values(): IterableIterator<string> {
		for (const [, value] of this.entries()) yield value;
	}

	forEach(callback: (value: string, name: string, headers: ResponseHeaders) => void): void {
		for (const [name, value] of this.entries()) callback(value, name, this);
	}

	[Symbol.iterator](): IterableIterator<[string, string]> {
		return this.entries();
	}
}

/** The subset of Response the SDKs read; `body` is the IncomingMessage (an async iterable of bytes). */
class NodeResponse {
	readonly status: number;
	readonly statusText: string;
	readonly ok: boolean;
	readonly headers: ResponseHeaders;
	readonly redirected = false;
	readonly type = "basic";
	private consumed = false;

	constructor(
		readonly body: IncomingMessage,
		readonly url: string,
	) {
		this.status = body.statusCode ?? 0;
		this.statusText = body.statusMessage ?? "";
		this.ok = this.status >= 200 && this.status < 300;
		this.headers = new ResponseHeaders(body.headers);
	}

	get bodyUsed(): boolean {
		return this.consumed;
	}

	async arrayBuffer(): Promise<ArrayBuffer> {
		const bytes = await this.bytes();
		return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
	}

	async text(): Promise<string> {
		return (await this.bytes()).toString("utf8");
	}

	async json(): Promise<unknown> {
		return JSON.parse(await this.text());
	}

	private bytes(): Promise<Buffer> {
		if (this.consumed) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
		this.consumed = true;
		const body = this.body;
		return new Promise((resolve, reject) => {
			const chunks: Buffer[] = [];
			body.on("data", (chunk: Buffer) => chunks.push(chunk));
			body.once("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
			body.once("error", reject);
			// A body cut off without an error event (the socket closed mid-message) must not hang.
			body.once("close", () => {
				if (!body.complete) reject(Object.assign(new Error("The connection closed before the response body ended"), { code: "ECONNRESET" }));
			});
		});
	}
}

function abortError(signal: AbortSignal): Error {
	// name "AbortError", as a spec fetch rejects with: the SDKs recognise an abort by it.
	return Object.assign(new Error("The operation was aborted", { cause: signal.reason }), { name: "AbortError" });
}

function toHeaderRecord(source: HeaderSource | undefined): Record<string, string> {
	const headers: Record<string, string> = {};
	if (!source) return headers;
	if (source instanceof Headers || Array.isArray(source)) {
		for (const [name, value] of source as Iterable<[string, string]>) headers[name] = value;
		return headers;
	}
	for (const [name, value] of Object.entries(source)) if (value !== undefined) headers[name] = String(value);
	return headers;
}

/** Drop-in for the SDKs' `fetch` option. */
export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
	const body = init.body;
	const simpleBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
	if (!simpleBody || (typeof input === "object" && !(input instanceof URL)) || init.redirect === "manual") return fetch(input, init);
	const signal = init.signal ?? undefined;
	if (signal?.aborted) return Promise.reject(abortError(signal));

	const url = typeof input === "string" ? new URL(input) : input;
	const secure = url.protocol === "https:";
	if (!secure && url.protocol !== "http:") return fetch(input, init);
	const headers = toHeaderRecord(init.headers);
	if (body !== undefined && body !== null) headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);

	return new Promise<Response>((resolve, reject) => {
		const request = (secure ? https : http).request(url, { method: init.method ?? "GET", headers, agent: secure ? httpsAgent : httpAgent });
		let response: IncomingMessage | undefined;
		// The abort must close the socket at once, before the answer and while its body streams.
		const onAbort = () => {
			const error = abortError(signal as AbortSignal);
			if (response) response.destroy(error);
			request.destroy(error);
		};
		const release = () => signal?.removeEventListener("abort", onAbort);
		signal?.addEventListener("abort", onAbort, { once: true });
		request.once("response", (incoming: IncomingMessage) => {
			response = incoming;
			incoming.once("close", release);
			resolve(new NodeResponse(incoming, url.href) as unknown as Response);
		});
		// `on`, not `once`: a socket can fail twice (e.g. reset after an abort), and an unheard
		// 'error' would crash the process.
		request.on("error", (error) => {
			release();
			reject(error);
		});
		request.end(body ?? undefined);
	});
}
