import type { Dispatcher } from "undici";
import type { Egress } from "../egress/egress";
import type { Cancellation } from "./cancellation";

/**
 * Every call to a model provider goes through the egress dispatcher (server/egress/egress.ts): its
 * connections are checked by the egress policy when they open, since a credential's base URL is
 * a tenant's choice; a pool of warm keep-alive connections per provider origin, shared by every
 * workspace (a new credential must not mean new TLS handshakes). undici's `request` rather than
 * node:http (about a fifth less CPU per proxied call in a side-by-side run) or the global fetch
 * (its Request, Headers and web-stream objects cost more CPU than the call itself against a fast
 * provider). Redirects are never followed: a provider answering one gets a 3xx back.
 *
 * Timeouts are ours: GenerationDeadline (server/modules/runtime) aborts through `signal`, so
 * undici's own header and body timeouts are off and can never fire first.
 */
export class UpstreamHttp {
	private readonly dispatcher: Dispatcher;

	constructor(private readonly egress: Egress) {
		this.dispatcher = egress.dispatcher;
	}

	/**
	 * One HTTP request to a provider. The body must be consumed (or destroyed) by the caller; aborting
	 * `signal` closes the connection at once, before the answer or while its body streams, which is
	 * what stops a provider from generating (and billing) for a caller that went away.
	 */
	request(
		url: URL,
		init: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal | Cancellation },
	): Promise<UpstreamResponse> {
		return this.dispatcher.request({ origin: url.origin, path: url.pathname + url.search, method: init.method, headers: init.headers, body: init.body, signal: init.signal });
	}

	/**
	 * Drop-in for a provider SDK's `fetch` option, on the same dispatcher. Anything unusual (a
	 * streamed or multipart request body, a Request object) goes through the egress fetch over the
	 * same dispatcher, so SDK features we do not call keep working, and are checked alike.
	 */
	readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
		const body = init.body;
		const simpleBody = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
		const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
		if (!simpleBody || !url || (url.protocol !== "https:" && url.protocol !== "http:")) return this.egress.fetch(input, { ...init, redirect: "manual" });
		const response = await this.request(url, {
			method: (init.method ?? "GET") as Dispatcher.HttpMethod,
			headers: toHeaderRecord(init.headers),
			body: body ?? undefined,
			signal: init.signal ?? undefined,
		});
		return new UpstreamFetchResponse(response, url.href) as unknown as Response;
	};
}

export type UpstreamResponse = Dispatcher.ResponseData;

/** The read side of Headers, over undici's plain header record (no copy, no re-parse). */
class ResponseHeaders {
	constructor(private readonly raw: UpstreamResponse["headers"]) {}

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

/** The subset of Response the provider SDKs read; `body` is undici's readable (an async iterable of bytes). */
class UpstreamFetchResponse {
	readonly status: number;
	readonly statusText = "";
	readonly ok: boolean;
	readonly headers: ResponseHeaders;
	readonly redirected = false;
	readonly type = "basic";

	constructor(
		private readonly response: UpstreamResponse,
		readonly url: string,
	) {
		this.status = response.statusCode;
		this.ok = this.status >= 200 && this.status < 300;
		this.headers = new ResponseHeaders(response.headers);
	}

	get body(): UpstreamResponse["body"] {
		return this.response.body;
	}

	get bodyUsed(): boolean {
		return this.response.body.bodyUsed;
	}

	arrayBuffer(): Promise<ArrayBuffer> {
		return this.response.body.arrayBuffer();
	}

	text(): Promise<string> {
		return this.response.body.text();
	}

	json(): Promise<unknown> {
		return this.response.body.json();
	}
}

function toHeaderRecord(source: RequestInit["headers"]): Record<string, string> {
	const headers: Record<string, string> = {};
	if (!source) return headers;
	if (source instanceof Headers || Array.isArray(source)) {
		for (const [name, value] of source as Iterable<[string, string]>) headers[name] = value;
		return headers;
	}
	for (const [name, value] of Object.entries(source)) if (value !== undefined) headers[name] = String(value);
	return headers;
}
