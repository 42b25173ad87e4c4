/**
 * The SDK's one HTTP path: base URL, API key, default headers and query, timeout, retries, logging
 * and typed errors. Every call of the API, generated or hand-written, ends in `sendRequest`.
 *
 * Configuration travels with each call, not in module state, so two clients with different keys
 * can run side by side.
 *
 * Retries follow openai-node (src/client.ts): connection failures, timeouts and 408, 429 and 5xx
 * answers are retried with jittered exponential backoff, honouring `Retry-After`. Every POST carries
 * an `Idempotency-Key` (the caller's, or a random one) that stays the same across its retries, so a
 * retried POST is replayed by the server instead of running twice.
 *
 * Only web-platform globals are used (fetch, Headers, AbortController, URL): the same code runs in
 * Node 20+, Deno, Bun and browsers.
 */
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, PlatformError } from "../errors.js";
import { requestIdOf, traceIdOf, type WithResponse } from "./api-promise.js";

/** The fetch the client calls; the global one by default. Any WHATWG-compatible fetch fits. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/** Where the client logs: `console` by default; any object with these four methods (pino, winston...). */
export interface Logger {
	debug(message: string, details?: object): void;
	info(message: string, details?: object): void;
	warn(message: string, details?: object): void;
	error(message: string, details?: object): void;
}

/** Header values; `null` removes a default header for one call. */
export type HeaderValues = Record<string, string | null | undefined>;
export type QueryValues = Record<string, string | number | boolean | null | undefined>;

/** A client's settled configuration (see ClientOptions for what each means). */
export interface ClientConfig {
	apiKey: string;
	/** Without a trailing slash. */
	baseURL: string;
	timeoutMs: number;
	maxRetries: number;
	fetch: Fetch;
	defaultHeaders: HeaderValues;
	defaultQuery: QueryValues;
	logger: Logger;
	logLevel: LogLevel;
}

/** Per-call options; every client method takes them as its last argument. */
export interface RequestOptions {
	/** Aborting it cancels the request (and a stream in flight, or a wait) with APIUserAbortError. */
	signal?: AbortSignal | null;
	/** Sent as `Idempotency-Key` on POST; a random one is used when absent, the same on every retry. */
	idempotencyKey?: string;
	/** Per attempt. */
	timeoutMs?: number;
	maxRetries?: number;
	/** Added to the client's default headers (`null` removes one). */
	headers?: HeaderValues;
	/** Added to the client's default query parameters. */
	query?: QueryValues;
}

/** One HTTP call as the SDK describes it before sending. */
export interface HttpRequest {
	method: string;
	/** A path under the base URL, or an absolute URL (object storage). */
	path: string;
	query?: QueryValues;
	headers?: HeaderValues;
	/** Serialized as JSON unless it is a Blob or a string. */
	body?: unknown;
	/** Adds the API key and the client's defaults; false for object storage, which must not see the key. */
	authenticate: boolean;
}

const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A server asking for a longer wait than this is not obeyed; the backoff applies instead. */
const MAX_RETRY_AFTER_MS = 60_000;
/** A reached spend quota is a 429 that no retry can fix: it needs a human (spec, Errors). */
const PERMANENT_ERROR_CODES: ReadonlySet<string> = new Set(["COST_QUOTA_EXCEEDED"]);

const LOG_LEVELS: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

export function log(config: ClientConfig, level: Exclude<LogLevel, "off">, message: string, details?: object): void {
	if (LOG_LEVELS[level] < LOG_LEVELS[config.logLevel]) return;
	config.logger[level](`[platform-sdk] ${message}`, details);
}

/**
 * Sends `request` with retries, timeout and typed errors, and reads a successful answer with `read`
 * within the attempt's timeout (for streams `read` returns at once, so the timeout ends with the
 * response headers: a stream may outlive any timeout, and only the caller's signal ends it).
 */
export async function sendRequest<T>(
	config: ClientConfig,
	request: HttpRequest,
	options: RequestOptions,
	read: (response: Response) => Promise<T>,
): Promise<WithResponse<T>> {
	const { timeoutMs = config.timeoutMs, maxRetries = config.maxRetries } = options;
	const userSignal = options.signal ?? undefined;
	const method = request.method.toUpperCase();
	const url = buildURL(config, request, options);
	const headers = buildHeaders(config, request, options, method);
	const body = encodeBody(request.body, headers);

	for (let attempt = 0; ; attempt++) {
		if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: userSignal.reason });
		const timeout = startTimeout(timeoutMs, userSignal);
		const started = Date.now();
		log(config, "debug", `${method} ${url}`, { attempt });
		let response: Response;
		try {
			response = await config.fetch(url, { method, headers, body, signal: timeout.signal });
		} catch (cause) {
			timeout.clear();
			const failure = transportError(cause, userSignal, timeout.timedOut());
			// A timeout is retried like a lost connection: the retry carries the same Idempotency-Key, so
			// work the first attempt finished is replayed, not redone.
			if (!(failure instanceof APIConnectionError) || attempt >= maxRetries) throw failure;
			const delay = backoffMs(attempt);
			log(config, "info", `${method} ${url} failed (${failure.message}); retrying in ${Math.round(delay)} ms`, { attempt });
			await sleep(delay, userSignal);
			continue;
		}
		const requestId = requestIdOf(response);
		log(config, "debug", `${method} ${url} -> ${response.status}`, { attempt, requestId, durationMs: Date.now() - started });

		if (!response.ok) {
			let errorBody: unknown;
			try {
				errorBody = await readErrorBody(response);
			} catch (cause) {
				throw transportError(cause, userSignal, timeout.timedOut());
			} finally {
				timeout.clear();
			}
			const error = APIError.generate(response.status, errorBody, response.headers);
			if (attempt >= maxRetries || !isRetryable(error, attempt)) throw error;
			const delay = retryDelayMs(attempt, response.headers);
			log(config, "info", `${method} ${url} answered ${response.status} ${error.code ?? ""}; retrying in ${Math.round(delay)} ms`, { attempt, requestId });
			await sleep(delay, userSignal);
			continue;
		}

		try {
			return { data: await read(response), response, requestId, traceId: traceIdOf(response.headers) };
		} catch (cause) {
			throw transportError(cause, userSignal, timeout.timedOut());
		} finally {
			timeout.clear();
		}
	}
}

export function joinURL(baseURL: string, path: string): string {
	if (/^https?:\/\//i.test(path)) return path;
	return baseURL.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
}

function buildURL(config: ClientConfig, request: HttpRequest, options: RequestOptions): string {
	const query = request.authenticate ? { ...config.defaultQuery, ...request.query, ...options.query } : { ...request.query };
	const url = joinURL(config.baseURL, request.path);
	const search = new URLSearchParams();
	for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) search.append(name, String(value));
	const encoded = search.toString();
	if (encoded.length === 0) return url;
	return url + (url.includes("?") ? "&" : "?") + encoded;
}

function buildHeaders(config: ClientConfig, request: HttpRequest, options: RequestOptions, method: string): Headers {
	const headers = new Headers();
	const apply = (init: HeaderValues | undefined) => {
		for (const [name, value] of Object.entries(init ?? {})) {
			if (value === null) headers.delete(name);
			else if (value !== undefined) headers.set(name, value);
		}
	};
	if (!request.authenticate) {
		// Object storage gets exactly the headers of the upload descriptor: no key, no defaults.
		apply(request.headers);
		return headers;
	}
	headers.set("Accept", "application/json");
	apply(config.defaultHeaders);
	apply(request.headers);
	apply(options.headers);
	headers.set("Authorization", `Bearer ${config.apiKey}`);
	if (method === "POST" && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", options.idempotencyKey ?? `sdk-${crypto.randomUUID()}`);
	return headers;
}

function encodeBody(body: unknown, headers: Headers): Blob | string | undefined {
	if (body === undefined) return undefined;
	if (typeof body === "string" || body instanceof Blob) return body;
	if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
	return JSON.stringify(body);
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
		signal: userSignal ? anySignal([userSignal, controller.signal]) : controller.signal,
		timedOut: () => timedOut,
		clear: () => clearTimeout(timer),
	};
}

/** AbortSignal.any where the runtime has it (Node 20.3+, Deno, Bun, current browsers), else the same by hand. */
export function anySignal(signals: AbortSignal[]): AbortSignal {
	if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
	const controller = new AbortController();
	for (const signal of signals) {
		if (signal.aborted) {
			controller.abort(signal.reason);
			break;
		}
		signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
	}
	return controller.signal;
}

/** Spec, Errors: transport failures (network, timeout, abort) are the base class, never an APIError. */
export function transportError(cause: unknown, userSignal: AbortSignal | undefined, timedOut: boolean): PlatformError {
	if (userSignal?.aborted) return new APIUserAbortError(undefined, { cause });
	if (timedOut) return cause instanceof APITimeoutError ? cause : new APITimeoutError(undefined, { cause });
	if (cause instanceof PlatformError) return cause;
	return new APIConnectionError(undefined, { cause });
}

function isRetryable(error: APIError, attempt: number): boolean {
	if (error.code !== undefined && PERMANENT_ERROR_CODES.has(error.code)) return false;
	// On a retry, 409 IDEMPOTENCY_KEY_CONFLICT means our own first attempt (same key, same body) is
	// still running on the server; once it ends, the retry replays its answer.
	if (attempt > 0 && error.status === 409 && error.code === "IDEMPOTENCY_KEY_CONFLICT") return true;
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

/** Waits `milliseconds`, or rejects with APIUserAbortError as soon as `signal` aborts. */
export function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
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

/** A JSON answer's body (undefined when empty). */
export async function readJsonBody(response: Response): Promise<unknown> {
	const text = await response.text();
	if (text.length === 0) return undefined;
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

/** An environment variable, where the runtime has them (Node, Bun, Deno with --allow-env); never in browsers. */
export function readEnv(name: string): string | undefined {
	const runtime = globalThis as { process?: { env?: Record<string, string | undefined> }; Deno?: { env?: { get(name: string): string | undefined } } };
	try {
		const value = runtime.process?.env?.[name] ?? runtime.Deno?.env?.get(name);
		return value?.trim() || undefined;
	} catch {
		// Deno without --allow-env throws.
		return undefined;
	}
}
