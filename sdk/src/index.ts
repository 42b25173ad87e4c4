/**
 * The TypeScript client of the AI application platform's runtime and knowledge API. Runs wherever
 * fetch does (Node 20+, Deno, Bun, browsers); Node-only helpers are in the `/node` entry.
 */
export {
	API_KEY_ENV,
	BASE_URL_ENV,
	type ClientOptions,
	DEFAULT_BASE_URL,
	DEFAULT_MAX_RETRIES,
	DEFAULT_TIMEOUT_MS,
	LOG_LEVEL_ENV,
	PlatformClient,
} from "./client.js";
export { APIPromise, type WithResponse } from "./core/api-promise.js";
export type { OperationClient, OperationOptions, OperationRequest } from "./core/operation.js";
export { Page, type PageBody, PagePromise } from "./core/pagination.js";
export type { ClientConfig, Fetch, HeaderValues, Logger, LogLevel, QueryValues, RequestOptions } from "./core/request.js";
export { type FileContent, type FileLike, type FileUpload, type FsReadStream, toFile, type Uploadable } from "./core/uploads.js";
export { ERROR_CODES, type ErrorCode, isKnownErrorCode, type KnownErrorCode } from "./error-codes.js";
export {
	APIConnectionError,
	APIError,
	APITimeoutError,
	APIUserAbortError,
	AuthenticationError,
	BadRequestError,
	ConflictError,
	DocumentFailedError,
	type FieldIssue,
	GenerationStreamError,
	NotFoundError,
	PermissionDeniedError,
	PlatformError,
	RateLimitError,
	ServerError,
} from "./errors.js";
export { type AssistantInput, AssistantsResource } from "./resources/assistants.js";
export { DIRECT_UPLOAD_LIMIT_BYTES, KnowledgeDocumentsResource, KnowledgeResource, KnowledgeSourcesResource, type ListParams, type PollOptions } from "./resources/knowledge.js";
export { RuntimeResource } from "./resources/runtime.js";
export { collectStream, parseServerSentEvents, parseStreamEvents, type ServerSentEvent, Stream, type StreamEvent, type StreamResult } from "./streaming.js";
/** Request and response types, generated from openapi.yaml. */
export type * from "./generated/api.js";
/** The low-level functions, one per operation; each takes `{ client }` (a PlatformClient) as its last argument. */
export * as operations from "./generated/api.js";
