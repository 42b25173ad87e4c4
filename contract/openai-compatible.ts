import { c, metadata } from "./common";
import { assistantHeaders } from "./runtime";
import { ZChatCompletion, ZChatCompletionChunk, ZChatCompletionRequest, ZOpenAiErrorBody, ZOpenAiModelList } from "./schemas/openai-compatible";
import { ZIdempotencyHeaders } from "./schemas/common";

export const OPENAI_COMPATIBLE_TAG = "OpenAI-compatible";

/** Every error of this surface is OpenAI's shape, whatever the status. */
const openAiErrors = {
	400: ZOpenAiErrorBody,
	401: ZOpenAiErrorBody,
	403: ZOpenAiErrorBody,
	413: ZOpenAiErrorBody,
	429: ZOpenAiErrorBody,
	500: ZOpenAiErrorBody,
} as const;


/**
 * OpenAI's chat completions and models endpoints over the same use cases as /runtime/*: the same
 * API keys and scope, rate limits, spend quota, Idempotency-Key, traces, cancellation, retries and
 * timeouts. Only the wire format is OpenAI's, errors included.
 */
export const openAiCompatibleContract = c.router(
	{
		createChatCompletion: {
			method: "POST",
			path: "/v1/chat/completions",
			summary: "Create a chat completion (OpenAI-compatible)",
			description:
				"OpenAI's `POST /chat/completions`: point any OpenAI SDK's base URL at `{base_url}/v1` with an API key. `model` names a deployed assistant (`slug`, `slug@environment`) or an ad-hoc `provider/model`. Honoured: `messages` (system, developer, user, assistant, tool; string or text-part content), `temperature`, `max_tokens` / `max_completion_tokens`, `response_format` (`json_object`, `json_schema`), `stream` with `stream_options.include_usage`, `stop`, `seed`, `user`, `n` = 1, and on ad-hoc models `tools` / `tool_choice`. A deployed assistant's version fixes provider, model, prompt, knowledge, timeout and retries; the caller's sampling fields (temperature, max tokens, response format, stop, seed) override the version's. Errors are OpenAI's shape `{error: {message, type, param, code}}` with the catalog's code in `code`: 404 `ASSISTANT_NOT_FOUND` / `DEPLOYMENT_NOT_FOUND`, 400 `VALIDATION_ERROR` (param names the field), 429 `RATE_LIMITED` (Retry-After) or `COST_QUOTA_EXCEEDED`, 502/503/504 `INTERNAL_ERROR` when the provider failed. The answer names its trace (`id`, `X-Trace-Id`) and, for an assistant, the version and environment (`assistant`, `X-Assistant-Version`, `X-Assistant-Environment`).",
			headers: ZIdempotencyHeaders,
			body: ZChatCompletionRequest,
			responses: { 200: ZChatCompletion, ...openAiErrors, 404: ZOpenAiErrorBody, 409: ZOpenAiErrorBody, 502: ZOpenAiErrorBody, 503: ZOpenAiErrorBody, 504: ZOpenAiErrorBody },
			metadata: metadata({
				operationId: "createChatCompletion",
				tags: [OPENAI_COMPATIBLE_TAG],
				scope: "runtime:execute",
				idempotent: true,
				errorFormat: "openai",
				streamedResponse: { contentType: "text/event-stream", body: ZChatCompletionChunk },
				responseHeaders: assistantHeaders,
			}),
		},
		listModels: {
			method: "GET",
			path: "/v1/models",
			summary: "List models (OpenAI-compatible)",
			description:
				"OpenAI's `GET /models`: what `model` can name in this workspace. Each deployed assistant not archived, by slug if it is deployed to production and as `slug@environment` for each environment it is deployed to; then `openai/`, `mistral/`, `openai-compatible/` for each provider the workspace holds a credential for (append the provider's model name).",
			responses: { 200: ZOpenAiModelList, ...openAiErrors },
			metadata: metadata({ operationId: "listModels", tags: [OPENAI_COMPATIBLE_TAG], scope: "runtime:execute", errorFormat: "openai" }),
		},
	},
	{ strictStatusCodes: true },
);
