/** @platform/sdk: the TypeScript client of the AI application platform's runtime and knowledge API. */
export {
	API_KEY_ENV,
	type AssistantInput,
	AssistantsResource,
	BASE_URL_ENV,
	type ClientOptions,
	DEFAULT_BASE_URL,
	DEFAULT_MAX_RETRIES,
	DEFAULT_TIMEOUT_MS,
	type FileContent,
	type FileUpload,
	KnowledgeDocumentsResource,
	KnowledgeResource,
	KnowledgeSourcesResource,
	PlatformClient,
	RuntimeResource,
} from "./client";
export {
	APIConnectionError,
	APIError,
	APITimeoutError,
	APIUserAbortError,
	AuthenticationError,
	BadRequestError,
	ConflictError,
	type FieldIssue,
	GenerationStreamError,
	NotFoundError,
	PermissionDeniedError,
	PlatformError,
	RateLimitError,
	ServerError,
} from "./errors";
export type { ClientConfig, PlatformRequestInit, RequestOptions } from "./http";
export { collectStream, parseServerSentEvents, parseStreamEvents, type ServerSentEvent, Stream, type StreamEvent, type StreamResult } from "./streaming";
/** Request and response types, generated from openapi.yaml. */
export type * from "./generated/api";
/** The low-level functions, one per operation (they need `{ client }` in their options; prefer PlatformClient). */
export * as operations from "./generated/api";
