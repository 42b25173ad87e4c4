/**
 * The SDK's one HTTP path: base URL, API key, timeout, retries and typed errors. The generated
 * functions (sdk/src/generated/api.ts) call `platformFetch` as their orval mutator; the hand-written
 * client calls `openStream` for Server-Sent Events and `sendRequest` for presigned uploads.
 *
 * Configuration travels with each call, not in module state: PlatformClient passes its
 * `ClientConfig` in the `options` argument of the generated function (a `PlatformRequestInit`,
 * which is a RequestInit), and orval spreads `options` into what reaches the mutator. Two clients
 * with different keys can therefore run side by side.
 *
 * Retries follow openai-node (src/client.ts): 408, 429 and 5xx answers and connection failures
 * (not timeouts) are retried with jittered exponential backoff, honouring `Retry-After`. Every POST carries an
 * `Idempotency-Key` (the caller's, or a random one) that stays the same across its retries, so a
 * retried POST is replayed by the server instead of running twice.
 */
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, PlatformError } from "./errors";

export interface ClientConfig {
	apiKey: string;
	/** Without a trailing slash. */
	baseURL: string;
	/** Per attempt, until the answer is read (for streams: until the response headers arrive). */
	timeoutMs: number;
	maxRetries: number;
	fetch: typeof globalThis.fetch;
}

/** Per-request options every client method accepts. */
export interface RequestOptions {
	/** Sent as `Idempotency-Key` on POST; a random one is used when absent. */
	idempotencyKey?: string;
	/** Aborting it cancels the request (and a stream in flight) with APIUserAbortError. */
	signal?: AbortSignal;
	timeoutMs?: number;
	maxRetries?: number;
}

/** What PlatformClient passes as the generated functions' `options`; orval forwards it to `platformFetch`. */
export interface PlatformRequestInit extends RequestInit {
	/** The calling client's configuration. */
	client?: ClientConfig;
	idempotencyKey?: string;
	timeoutMs?: number;
	maxRetries?: number;
}

const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A server asking for a longer wait than this is not obeyed; the backoff applies instead. */
const MAX_RETRY_AFTER_MS = 60_000;
/**
 * Codes that a retry cannot fix even though their status is retryable: a reached spend quota (429)
 * and a provider credential the provider rejected (502) need a human.
 */
const PERMANENT_ERROR_CODES: ReadonlySet<string> = new Set(["COST_QUOTA_EXCEEDED", "PROVIDER_AUTHENTICATION_FAILED"]);

/** The orval mutator: one call of the API, resolved with the parsed success body. */
export async function platformFetch<T>(path: string, init: PlatformRequestInit): Promise<T> {
	const config = requireConfig(init);
	return sendRequest(joinURL(config.baseURL, path), init, { authenticate: true, read: readSuccessBody }) as Promise<T>;
}

/** Opens a Server-Sent Events response; errors before the stream opens are thrown as usual. */
export async function openStream(path: string, init: PlatformRequestInit): Promise<Response> {
	const config = requireConfig(init);
	const headers = toHeaders(init.headers);
	headers.set("Accept", "text/event-stream");
	// Returned unread: the attempt's timeout ends with the response headers, since a stream may run
	// longer than any timeout; from then on only the caller's signal ends it.
	return sendRequest(joinURL(config.baseURL, path), { ...init, headers }, { authenticate: true, read: async (response) => response });
}

export interface SendOptions<T> {
	/** Adds `Authorization: Bearer <key>`; false for object storage, which must not see the key. */
	authenticate: boolean;
	/** Reads a successful answer, within the attempt's timeout. */
	read: (response: Response) => Promise<T>;
}

/** Sends `init` to the absolute `url` with retries, timeout and typed errors. */
export async function sendRequest<T>(url: string, init: PlatformRequestInit, options: SendOptions<T>): Promise<T> {
	const config = requireConfig(init);
	const { client: _client, idempotencyKey, timeoutMs = config.timeoutMs, maxRetries = config.maxRetries, signal, ...fetchInit } = init;
	const userSignal = signal ?? undefined;
	const method = (fetchInit.method ?? "GET").toUpperCase();
	const headers = toHeaders(fetchInit.headers);
	if (options.authenticate) {
		headers.set("Authorization", `Bearer ${config.apiKey}`);
		if (!headers.has("Accept")) headers.set("Accept", "application/json");
		if (method === "POST" && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", idempotencyKey ?? `sdk-${crypto.randomUUID()}`);
	}

	for (let attempt = 0; ; attempt++) {
		if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: userSignal.reason });
		const timeout = startTimeout(timeoutMs, userSignal);
		let response: Response;
		try {
			response = await config.fetch(url, { ...fetchInit, method, headers, signal: timeout.signal });
		} catch (cause) {
			timeout.clear();
			const failure = transportError(cause, userSignal, timeout.timedOut());
			// A timed-out attempt may still be running on the server, where a retry with the same
			// Idempotency-Key would only meet 409 IDEMPOTENCY_KEY_CONFLICT; so timeouts are final.
			if (!(failure instanceof APIConnectionError) || failure instanceof APITimeoutError || attempt >= maxRetries) throw failure;
			await sleep(backoffMs(attempt), userSignal);
			continue;
		}

		if (!response.ok) {
			let body: unknown;
			try {
				body = await readErrorBody(response);
			} catch (cause) {
				throw transportError(cause, userSignal, timeout.timedOut());
			} finally {
				timeout.clear();
			}
			const error = APIError.generate(response.status, body, response.headers);
			if (attempt >= maxRetries || !isRetryable(error)) throw error;
			await sleep(retryDelayMs(attempt, response.headers), userSignal);
			continue;
		}

		try {
			return await options.read(response);
		} catch (cause) {
			throw transportError(cause, userSignal, timeout.timedOut());
		} finally {
			timeout.clear();
		}
	}
}

function requireConfig(init: PlatformRequestInit | undefined): ClientConfig {
	if (!init?.client) {
		throw new PlatformError("No client configuration: call the API through PlatformClient, or pass { client } in the request options.");
	}
	return init.client;
}

export function joinURL(baseURL: string, path: string): string {
	return baseURL.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
}

/** Generated code builds headers as a plain object, possibly with undefined values; those are dropped. */
function toHeaders(init: RequestInit["headers"]): Headers {
	if (init === undefined || init instanceof Headers || Array.isArray(init)) return new Headers(init);
	const headers = new Headers();
	for (const [name, value] of Object.entries(init)) if (value !== undefined && value !== null) headers.set(name, String(value));
	return headers;
}

interface AttemptTimeout {
	signal: AbortSignal;
	timedOut(): boolean;
	clear(): void;
}

/**
 * A timer that can be cleared, unlike AbortSignal.timeout(): a successful stream must outlive it,
 * and a finished request should not keep a timer alive.
 */
function startTimeout(timeoutMs: number, userSignal: AbortSignal | undefined): AttemptTimeout {
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort(new APITimeoutError());
	}, timeoutMs);
	return {
		signal: userSignal ? AbortSignal.any([userSignal, controller.signal]) : controller.signal,
		timedOut: () => timedOut,
		clear: () => clearTimeout(timer),
	};
}

/** Spec, Errors: transport failures (network, timeout, abort) are the base class, never an APIError. */
export function transportError(cause: unknown, userSignal: AbortSignal | undefined, timedOut: boolean): PlatformError {
	if (userSignal?.aborted) return new APIUserAbortError(undefined, { cause });
	if (timedOut) return cause instanceof APITimeoutError ? cause : new APITimeoutError(undefined, { cause });
	if (cause instanceof PlatformError) return cause;
	return new APIConnectionError(undefined, { cause });
}

function isRetryable(error: APIError): boolean {
	if (error.code !== undefined && PERMANENT_ERROR_CODES.has(error.code)) return false;
	return error.status === 408 || error.status === 429 || error.status >= 500;
}

/** `Retry-After` (seconds or an HTTP date, RFC 9110 10.2.3) or `retry-after-ms` when sensible, else the backoff. */
function retryDelayMs(attempt: number, headers: Headers): number {
	const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
	let requested = Number.isNaN(milliseconds) ? undefined : milliseconds;
	const retryAfter = headers.get("retry-after");
	if (requested === undefined && retryAfter !== null) {
		const seconds = Number.parseFloat(retryAfter);
		requested = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
	}
	if (requested !== undefined && !Number.isNaN(requested) && requested >= 0 && requested <= MAX_RETRY_AFTER_MS) return requested;
	return backoffMs(attempt);
}

/** 0.5 s, 1 s, 2 s ... capped at 8 s, minus up to 25% jitter so that clients do not retry in step. */
function backoffMs(attempt: number): number {
	const delay = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** attempt, MAX_RETRY_DELAY_MS);
	return delay * (1 - Math.random() * 0.25);
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
		const onAbort = () => {
			clearTimeout(timer);
			reject(new APIUserAbortError(undefined, { cause: signal?.reason }));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, milliseconds);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

async function readSuccessBody(response: Response): Promise<unknown> {
	const text = await response.text();
	if (text.length === 0) return undefined;
	const contentType = response.headers.get("content-type") ?? "";
	// The generated stream functions type their answer as the raw event-stream text.
	if (!/\bjson\b/i.test(contentType)) return text;
	try {
		return JSON.parse(text);
	} catch (cause) {
		throw new PlatformError(`The server answered ${response.status} with malformed JSON.`, { cause });
	}
}

/** The error envelope when the body is JSON, else the raw text (a proxy's page, object storage's XML). */
async function readErrorBody(response: Response): Promise<unknown> {
	const text = await response.text();
	if (text.length === 0) return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
