/**
 * PlatformClient: the hand-written surface of the SDK. Resources mirror the contract (runtime,
 * assistants, knowledge.sources, knowledge.documents) with create/retrieve/list/delete verbs, as in
 * openai-node. Every call goes through a generated function (src/generated/api.ts), which hands its
 * request back to this client (`request`, `requestStream`): one HTTP path for all of them.
 */
import { APIPromise } from "./core/api-promise.js";
import type { OperationClient, OperationRequest } from "./core/operation.js";
import {
	anySignal,
	type ClientConfig,
	type Fetch,
	type HeaderValues,
	type Logger,
	type LogLevel,
	type QueryValues,
	readEnv,
	readJsonBody,
	type RequestOptions,
	sendRequest,
} from "./core/request.js";
import { PlatformError } from "./errors.js";
import type * as api from "./generated/api.js";
import { AssistantsResource } from "./resources/assistants.js";
import { KnowledgeResource } from "./resources/knowledge.js";
import { RuntimeResource } from "./resources/runtime.js";
import { Stream } from "./streaming.js";

/**
 * Where the client sends requests when neither `baseURL` nor PLATFORM_BASE_URL is set: a server
 * started locally with `npm start`. There is no managed address; deployments set their own.
 */
export const DEFAULT_BASE_URL = "http://localhost:3000";
/** Matches the longest generation the API allows (config.timeoutMs at most 600 000). */
export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;

export const API_KEY_ENV = "PLATFORM_API_KEY";
export const BASE_URL_ENV = "PLATFORM_BASE_URL";
/** `debug`, `info`, `warn`, `error` or `off`: the log level when the `logLevel` option is not given. */
export const LOG_LEVEL_ENV = "PLATFORM_LOG";

export interface ClientOptions {
	/** Workspace API key (`csk_live_...`). Default: the PLATFORM_API_KEY environment variable. Keep it server-side. */
	apiKey?: string;
	/** Default: the PLATFORM_BASE_URL environment variable, else DEFAULT_BASE_URL (http://localhost:3000). */
	baseURL?: string;
	/** Per attempt. Default 10 minutes. For streams it covers the wait for the response headers. */
	timeoutMs?: number;
	/** Retries of connection failures, timeouts and 408, 429 and 5xx answers. Default 2. */
	maxRetries?: number;
	/** A fetch implementation, e.g. for proxies or tests. Default: the global fetch. */
	fetch?: Fetch;
	/** Headers sent with every API request (not to object storage); `null` removes one. */
	defaultHeaders?: HeaderValues;
	/** Query parameters added to every API request. */
	defaultQuery?: QueryValues;
	/** Where to log. Default: console. The API key is never logged. */
	logger?: Logger;
	/** Default: PLATFORM_LOG, else `warn` (nothing is logged above debug and info unless something is wrong). */
	logLevel?: LogLevel;
}

const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error", "off"];

function settle(options: ClientOptions): ClientConfig {
	const apiKey = options.apiKey ?? readEnv(API_KEY_ENV);
	if (!apiKey) throw new PlatformError(`No API key: pass { apiKey } to PlatformClient or set the ${API_KEY_ENV} environment variable.`);
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
	if (!(timeoutMs > 0)) throw new PlatformError("timeoutMs must be a positive number of milliseconds.");
	if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new PlatformError("maxRetries must be a non-negative integer.");
	const fetchImplementation = options.fetch ?? globalThis.fetch?.bind(globalThis);
	if (typeof fetchImplementation !== "function") throw new PlatformError("No fetch implementation: pass { fetch }.");
	const envLevel = readEnv(LOG_LEVEL_ENV) as LogLevel | undefined;
	const logLevel = options.logLevel ?? (envLevel && LOG_LEVELS.includes(envLevel) ? envLevel : "warn");
	return {
		apiKey,
		baseURL: (options.baseURL ?? readEnv(BASE_URL_ENV) ?? DEFAULT_BASE_URL).replace(/\/+$/, ""),
		timeoutMs,
		maxRetries,
		fetch: fetchImplementation,
		defaultHeaders: { ...options.defaultHeaders },
		defaultQuery: { ...options.defaultQuery },
		logger: options.logger ?? console,
		logLevel,
	};
}

export class PlatformClient implements OperationClient {
	readonly runtime: RuntimeResource;
	readonly assistants: AssistantsResource;
	readonly knowledge: KnowledgeResource;
	/** The settled configuration; resources send their own calls with it. */
	readonly config: ClientConfig;
	readonly #options: ClientOptions;

	/** Fails at once when no API key is configured (spec, Client SDK behaviour). */
	constructor(options: ClientOptions = {}) {
		this.#options = options;
		this.config = settle(options);
		this.runtime = new RuntimeResource(this);
		this.assistants = new AssistantsResource(this);
		this.knowledge = new KnowledgeResource(this);
	}

	get baseURL(): string {
		return this.config.baseURL;
	}

	/** A new client with these options over this one's (headers and query merged). */
	withOptions(options: ClientOptions): PlatformClient {
		return new PlatformClient({
			...this.#options,
			apiKey: this.config.apiKey,
			...options,
			defaultHeaders: { ...this.#options.defaultHeaders, ...options.defaultHeaders },
			defaultQuery: { ...this.#options.defaultQuery, ...options.defaultQuery },
		});
	}

	/** GET /healthz: liveness and database readiness; needs no scope. */
	health(options?: RequestOptions): APIPromise<api.Health> {
		return this.request({ url: "/healthz", method: "GET" }, options);
	}

	/** Sends one operation and resolves with its parsed JSON body (what the generated functions call). */
	request<T>(request: OperationRequest, options: RequestOptions = {}): APIPromise<T> {
		return new APIPromise(
			sendRequest(this.config, toHttpRequest(request), options, async (response) => (await readJsonBody(response)) as T),
		);
	}

	/** Sends one operation answered as Server-Sent Events and resolves with the open Stream. */
	requestStream(request: OperationRequest, options: RequestOptions = {}): APIPromise<Stream> {
		const controller = new AbortController();
		const signal = options.signal ? anySignal([options.signal, controller.signal]) : controller.signal;
		const httpRequest = toHttpRequest(request);
		httpRequest.headers = { ...httpRequest.headers, Accept: "text/event-stream" };
		return new APIPromise(
			sendRequest(this.config, httpRequest, { ...options, signal }, async (response) => new Stream(response, controller, signal)),
		);
	}
}

function toHttpRequest(request: OperationRequest): { method: string; path: string; query?: QueryValues; headers?: HeaderValues; body?: unknown; authenticate: true } {
	return { method: request.method, path: request.url, query: request.params, headers: request.headers, body: request.data, authenticate: true };
}
