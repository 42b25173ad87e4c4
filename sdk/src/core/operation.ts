/**
 * The functions the generated code (src/generated/api.ts) calls, one per operation, as its orval
 * mutators (scripts/generate.ts). Each generated function ends in
 *
 *   platformRequest<Body>({ url, method, headers, data, params }, options)
 *
 * and `options` must name the client that sends it: `{ client }`, plus any per-call RequestOptions.
 * Operations answered as Server-Sent Events use `platformStreamRequest` instead and resolve with a
 * Stream, not with the event-stream text.
 */
import { PlatformError } from "../errors.js";
import type { Stream } from "../streaming.js";
import type { APIPromise } from "./api-promise.js";
import type { QueryValues, RequestOptions } from "./request.js";

/** One operation's request, as the generated code describes it. */
export interface OperationRequest {
	/** The path, parameters already in place (unencoded: ids must not contain `/`). */
	url: string;
	method: string;
	headers?: Record<string, string | undefined>;
	/** The JSON body. */
	data?: unknown;
	/** The query parameters. */
	params?: QueryValues;
}

/** What sends an operation: PlatformClient. */
export interface OperationClient {
	request<T>(request: OperationRequest, options?: RequestOptions): APIPromise<T>;
	requestStream(request: OperationRequest, options?: RequestOptions): APIPromise<Stream>;
}

/** The last argument of every generated function. */
export interface OperationOptions extends RequestOptions {
	/** The client whose key, base URL, retries and logger the call uses. */
	client: OperationClient;
}

function requireClient(options: OperationOptions | undefined): OperationClient {
	if (!options?.client) throw new PlatformError("No client: pass { client } (a PlatformClient) as the last argument of a low-level operation.");
	return options.client;
}

/** The orval mutator of JSON operations: resolves with the parsed success body. */
export function platformRequest<T>(request: OperationRequest, options?: OperationOptions): APIPromise<T> {
	return requireClient(options).request<T>(request, options);
}

/** The orval mutator of Server-Sent Events operations: resolves with the open Stream. */
export function platformStreamRequest<_Body>(request: OperationRequest, options?: OperationOptions): APIPromise<Stream> {
	return requireClient(options).requestStream(request, options);
}
