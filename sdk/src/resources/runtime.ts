import type { APIPromise } from "../core/api-promise.js";
import type { OperationClient } from "../core/operation.js";
import type { RequestOptions } from "../core/request.js";
import * as api from "../generated/api.js";
import type { Stream } from "../streaming.js";

/** Ad-hoc generations: the caller names provider, model and messages (scope runtime:execute). */
export class RuntimeResource {
	constructor(private readonly client: OperationClient) {}

	/** POST /runtime/execute: an ad-hoc generation. */
	execute(body: api.ExecuteRequest, options?: RequestOptions): APIPromise<api.GenerationResult> {
		return api.executeGeneration(body, undefined, { ...options, client: this.client });
	}

	/** POST /runtime/stream: the same, streamed as typed events. */
	stream(body: api.ExecuteRequest, options?: RequestOptions): APIPromise<Stream> {
		return api.streamGeneration(body, undefined, { ...options, client: this.client });
	}
}
