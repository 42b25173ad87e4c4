import { z } from "../zod";
import { ZVariableValue } from "./runtime";

/**
 * OpenAI's chat completions wire format, as far as this server honours it (README, "OpenAI-compatible
 * endpoint"). Field names are OpenAI's (snake_case), so any OpenAI SDK, in any language, can call a
 * deployed assistant or an ad-hoc model by pointing its base URL here. Fields OpenAI defines that are
 * not listed are accepted and ignored, as OpenAI-compatible servers commonly do: SDKs send some of
 * them unasked.
 */

const TEXT_LIMIT = 1_000_000;

export const ZOpenAiTextPart = z
	.object({ type: z.literal("text"), text: z.string().max(TEXT_LIMIT) })
	.openapi("OpenAiTextPart", { description: "A text content part. Other part types (images, audio, files) are refused with 400." });

export const ZOpenAiMessageContent = z.union([z.string().max(TEXT_LIMIT), z.array(ZOpenAiTextPart).max(100)]);

export const ZOpenAiToolCall = z
	.object({
		id: z.string().min(1).max(200),
		type: z.literal("function"),
		function: z.object({ name: z.string().min(1).max(200), arguments: z.string().max(TEXT_LIMIT) }),
	})
	.openapi("OpenAiToolCall", { description: "A call of one of the caller's tools, as the model asked for it." });

export const ZOpenAiMessage = z
	.object({
		role: z.enum(["system", "developer", "user", "assistant", "tool"]).openapi({ description: "`developer` is read as `system`." }),
		content: ZOpenAiMessageContent.nullable().optional().openapi({ description: "A string, or text parts (concatenated). May be null on an assistant message that only calls tools." }),
		name: z.string().max(200).optional().openapi({ description: "Accepted and ignored." }),
		tool_calls: z.array(ZOpenAiToolCall).max(128).optional().openapi({ description: "On an assistant message: the tool calls it made (ad-hoc models)." }),
		tool_call_id: z.string().min(1).max(200).optional().openapi({ description: "On a `tool` message: the call it answers." }),
	})
	.openapi("OpenAiMessage");
export type TOpenAiMessage = z.infer<typeof ZOpenAiMessage>;

export const ZOpenAiFunctionTool = z
	.object({
		type: z.literal("function"),
		function: z.object({
			name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Letters, digits, underscores and dashes, at most 64"),
			description: z.string().max(10_000).optional(),
			parameters: z.record(z.unknown()).optional(),
			strict: z.boolean().nullable().optional(),
		}),
	})
	.openapi("OpenAiFunctionTool", { description: "A tool the caller runs itself: the model may answer with a call of it (`tool_calls`)." });
export type TOpenAiFunctionTool = z.infer<typeof ZOpenAiFunctionTool>;

export const ZOpenAiToolChoice = z.union([
	z.enum(["none", "auto", "required"]),
	z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1).max(64) }) }),
]);
export type TOpenAiToolChoice = z.infer<typeof ZOpenAiToolChoice>;

export const ZOpenAiResponseFormat = z
	.discriminatedUnion("type", [
		z.object({ type: z.literal("text") }),
		z.object({ type: z.literal("json_object") }),
		z.object({
			type: z.literal("json_schema"),
			json_schema: z.object({
				name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Letters, digits, underscores and dashes, at most 64"),
				description: z.string().max(10_000).optional(),
				schema: z.record(z.unknown()).optional(),
				strict: z.boolean().nullable().optional(),
			}),
		}),
	])
	.openapi("OpenAiResponseFormat", {
		description: "`json_object`: the provider's JSON mode. `json_schema`: the schema is passed to the provider (OpenAI and compatible servers, Mistral), which constrains the answer to it.",
	});
export type TOpenAiResponseFormat = z.infer<typeof ZOpenAiResponseFormat>;

export const ZChatCompletionRequest = z
	.object({
		model: z.string().min(1).max(300).openapi({
			description:
				"What runs. `<assistant-slug>` (production) or `<assistant-slug>@<environment>`: the version deployed there, its provider, model, prompt and knowledge; the caller's messages follow its system prompt. `<provider>/<model>` (`openai/gpt-4.1-mini`, `mistral/mistral-small-latest`, `openai-compatible/llama3`): an ad-hoc generation on the workspace's credential for that provider. `GET /v1/models` lists them.",
			example: "support-bot@staging",
		}),
		messages: z.array(ZOpenAiMessage).min(1, "At least one message is required").max(1000),
		temperature: z.number().min(0).max(2).nullable().optional(),
		max_tokens: z.number().int().min(1).max(1_000_000).nullable().optional().openapi({ description: "Cap on generated tokens (also `max_completion_tokens`, which wins)." }),
		max_completion_tokens: z.number().int().min(1).max(1_000_000).nullable().optional(),
		response_format: ZOpenAiResponseFormat.optional(),
		stream: z.boolean().nullable().optional().openapi({ description: "Answer as Server-Sent Events of `chat.completion.chunk` objects ending with `data: [DONE]`." }),
		stream_options: z
			.object({ include_usage: z.boolean().optional() })
			.nullable()
			.optional()
			.openapi({ description: "`include_usage`: a last chunk, with no choices, carries the token usage." }),
		stop: z
			.union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).max(4)])
			.nullable()
			.optional()
			.openapi({ description: "Up to 4 sequences where the provider stops generating." }),
		seed: z.number().int().nullable().optional().openapi({ description: "Passed to the provider (Mistral: `random_seed`) for repeatable sampling where it offers it." }),
		user: z.string().max(500).nullable().optional().openapi({ description: "An end-user identifier, passed to OpenAI and compatible servers (Mistral takes none)." }),
		n: z
			.number()
			.int()
			.nullable()
			.optional()
			.refine((n) => n === undefined || n === null || n === 1, "Only n = 1 is supported: one choice per request")
			.openapi({ description: "Only 1 (the default): other values are refused with 400." }),
		tools: z.array(ZOpenAiFunctionTool).max(128).optional().openapi({ description: "Ad-hoc models only: the caller's own tools, passed to the provider; its calls come back as `tool_calls`." }),
		tool_choice: ZOpenAiToolChoice.optional(),
		variables: z.record(ZVariableValue).optional().openapi({
			description:
				"Not OpenAI's: values for a deployed assistant's declared prompt variables, as on `POST /runtime/assistants/{slug}` (400 on `variables.<name>` for a missing required one, an undeclared name or a wrong type). OpenAI SDKs pass it as an extra body field (`extra_body` in Python, a plain property in Node).",
		}),
	})
	.openapi("ChatCompletionRequest", {
		description: "OpenAI's chat completion request. Fields of OpenAI's API not listed here (`top_p`, `frequency_penalty`, `logprobs`…) are accepted and ignored.",
		example: { model: "support-bot", messages: [{ role: "user", content: "Where is my order?" }], variables: { customerName: "Ada" } },
	});
export type TChatCompletionRequest = z.infer<typeof ZChatCompletionRequest>;

export const OPENAI_FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter"] as const;
const ZOpenAiFinishReason = z.enum(OPENAI_FINISH_REASONS);

export const ZOpenAiUsage = z
	.object({
		prompt_tokens: z.number().int().nonnegative(),
		completion_tokens: z.number().int().nonnegative(),
		total_tokens: z.number().int().nonnegative(),
	})
	.openapi("OpenAiUsage");

const ZOpenAiServedAssistant = z
	.object({ slug: z.string(), version: z.number().int().min(1), environment: z.string() })
	.openapi("OpenAiServedAssistant", {
		description: "Not OpenAI's: on a deployed assistant's answer, the published version and environment that served it (also the `X-Assistant-Version` and `X-Assistant-Environment` headers).",
	});

export const ZChatCompletion = z
	.object({
		id: z.string().openapi({ description: "The trace recording this generation (as the `X-Trace-Id` header)." }),
		object: z.literal("chat.completion"),
		created: z.number().int().openapi({ description: "Unix seconds." }),
		model: z.string().openapi({ description: "The `model` as requested." }),
		choices: z.array(
			z.object({
				index: z.literal(0),
				message: z.object({
					role: z.literal("assistant"),
					content: z.string().nullable(),
					refusal: z.null(),
					tool_calls: z.array(ZOpenAiToolCall).optional(),
				}),
				finish_reason: ZOpenAiFinishReason,
				logprobs: z.null(),
			}),
		),
		usage: ZOpenAiUsage,
		assistant: ZOpenAiServedAssistant.optional(),
	})
	.openapi("ChatCompletion", {
		example: {
			id: "trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D",
			object: "chat.completion",
			created: 1764158400,
			model: "support-bot",
			choices: [{ index: 0, message: { role: "assistant", content: "Your order left yesterday.", refusal: null }, finish_reason: "stop", logprobs: null }],
			usage: { prompt_tokens: 42, completion_tokens: 6, total_tokens: 48 },
			assistant: { slug: "support-bot", version: 3, environment: "production" },
		},
	});
export type TChatCompletion = z.infer<typeof ZChatCompletion>;

export const ZChatCompletionChunk = z
	.object({
		id: z.string(),
		object: z.literal("chat.completion.chunk"),
		created: z.number().int(),
		model: z.string(),
		choices: z.array(
			z.object({
				index: z.literal(0),
				delta: z.object({
					role: z.literal("assistant").optional(),
					content: z.string().nullable().optional(),
					tool_calls: z
						.array(z.object({ index: z.number().int(), id: z.string().optional(), type: z.literal("function").optional(), function: z.object({ name: z.string().optional(), arguments: z.string().optional() }) }))
						.optional(),
				}),
				finish_reason: ZOpenAiFinishReason.nullable(),
				logprobs: z.null(),
			}),
		),
		usage: ZOpenAiUsage.nullable().optional(),
		assistant: ZOpenAiServedAssistant.optional(),
	})
	.openapi("ChatCompletionChunk", {
		description:
			"One `data:` frame of a streamed answer (`stream: true`). The first carries `delta.role`, then one per piece of text, then one with `finish_reason`; with `stream_options.include_usage`, a last one with no choices carries `usage` (null in the others). The stream ends with `data: [DONE]`. A failure after the stream opened is a frame `event: error` whose data is `{\"error\": {message, type, param, code}}`, after which the stream ends (OpenAI SDKs raise it). `: keep-alive` comments come in long silences. The `X-Trace-Id` header names the trace (the `id` of every chunk); a deployed assistant's stream also has `X-Assistant-Version` and `X-Assistant-Environment`, and `assistant` in its first chunk.",
	});

export const ZOpenAiErrorBody = z
	.object({
		error: z.object({
			message: z.string().openapi({ description: "Human-readable; not to be matched on." }),
			type: z.string().openapi({
				description:
					"OpenAI's error type for the status: `invalid_request_error` (400, 413), `authentication_error` (401), `permission_error` (403), `not_found_error` (404), `conflict_error` (409), `rate_limit_error` or `insufficient_quota` (429), `server_error` (5xx).",
			}),
			param: z.string().nullable().openapi({ description: "The first offending field of a VALIDATION_ERROR (`messages[0].role`), else null." }),
			code: z.string().openapi({ description: "The code of this server's closed catalog (see ErrorEnvelope): `VALIDATION_ERROR`, `RATE_LIMITED`, `ASSISTANT_NOT_FOUND`…" }),
		}),
	})
	.openapi("OpenAiError", {
		description: "Errors on the OpenAI-compatible surface, in OpenAI's shape with this server's catalog code in `code`, so OpenAI SDKs raise their own typed errors by status.",
		example: { error: { message: "No assistant 'suport-bot' in this workspace", type: "not_found_error", param: null, code: "ASSISTANT_NOT_FOUND" } },
	});
export type TOpenAiErrorBody = z.infer<typeof ZOpenAiErrorBody>;

export const ZOpenAiModel = z
	.object({
		id: z.string().openapi({ description: "Pass as `model`. A provider prefix (`openai/`) takes a model name after it." }),
		object: z.literal("model"),
		created: z.number().int().openapi({ description: "Unix seconds: when the assistant was created (0 for a provider prefix)." }),
		owned_by: z.string().openapi({ description: "`workspace` for an assistant; the provider for a prefix." }),
	})
	.openapi("OpenAiModel");
export type TOpenAiModel = z.infer<typeof ZOpenAiModel>;

export const ZOpenAiModelList = z
	.object({ object: z.literal("list"), data: z.array(ZOpenAiModel) })
	.openapi("OpenAiModelList", {
		description:
			"The workspace's deployed assistants (each once by slug, for production, and as `slug@environment` for every environment it is deployed to), then `provider/` for each provider the workspace holds a credential for.",
		example: {
			object: "list",
			data: [
				{ id: "support-bot", object: "model", created: 1764158400, owned_by: "workspace" },
				{ id: "support-bot@production", object: "model", created: 1764158400, owned_by: "workspace" },
				{ id: "support-bot@staging", object: "model", created: 1764158400, owned_by: "workspace" },
				{ id: "openai/", object: "model", created: 0, owned_by: "openai" },
			],
		},
	});
export type TOpenAiModelList = z.infer<typeof ZOpenAiModelList>;
