import type { APIPromise } from "../core/api-promise.js";
import type { OperationClient } from "../core/operation.js";
import type { RequestOptions } from "../core/request.js";
import * as api from "../generated/api.js";
import type { Stream } from "../streaming.js";
import { pathSegment } from "./path-segment.js";

/** The input of a deployed assistant, or just its `input` text. */
export type AssistantInput = api.AssistantRunInput | string;

function toRunInput(input: AssistantInput): api.AssistantRunInput {
	return typeof input === "string" ? { input } : input;
}

/** Deployed assistants, by slug: provider, model and prompt come from the published version (scope runtime:execute). */
export class AssistantsResource {
	constructor(private readonly client: OperationClient) {}

	/**
	 * POST /runtime/assistants/{slug}: runs the version deployed to `environment` (default production).
	 * The answer names the version that served it (`assistant`) and its trace (`traceId`).
	 */
	run(slug: string, input: AssistantInput, options?: RequestOptions): APIPromise<api.AssistantGenerationResult> {
		return api.runAssistant(pathSegment(slug), toRunInput(input), undefined, { ...options, client: this.client });
	}

	/** POST /runtime/assistants/{slug}/stream: the same, streamed as typed events. */
	stream(slug: string, input: AssistantInput, options?: RequestOptions): APIPromise<Stream> {
		return api.streamAssistant(pathSegment(slug), toRunInput(input), undefined, { ...options, client: this.client });
	}
}
