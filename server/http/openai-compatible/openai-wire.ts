import type { TChatCompletion, TOpenAiModelList } from "../../../contract/schemas/openai-compatible";
import type { TServedAssistant } from "../../../contract/schemas/runtime";
import type { RuntimeModel } from "../../modules/runtime/list-runtime-models";
import type { GenerationAnswer, GenerationStreamEvent } from "../../modules/runtime/run-generation";
import type { FinishReason, TokenUsage, ToolCall } from "../../providers/types";
import { AppError } from "../../shared/app-error";
import { formatSseFrame, type SseEncoder } from "../sse";
import { openAiErrorBody } from "./openai-error";

/** OpenAI has no `error` finish reason: a generation that reports one (after answering) simply stopped. */
export function openAiFinishReason(reason: FinishReason): "stop" | "length" | "tool_calls" | "content_filter" {
	return reason === "error" ? "stop" : reason;
}

export function openAiUsage(usage: TokenUsage) {
	return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
}

const unixSeconds = () => Math.floor(Date.now() / 1000);

/** What every answer of one generation repeats: its id (the trace), the model as requested, the served assistant. */
export interface CompletionIdentity {
	id: string;
	model: string;
	served?: TServedAssistant;
	/** The caller offered its own tools: the model's calls go back to it (an assistant's own tools run here and stay unseen). */
	clientTools: boolean;
}

const wireToolCall = (call: ToolCall) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } });

/** Our generation result as OpenAI's `chat.completion`; the id is the trace's. */
export function presentChatCompletion(identity: CompletionIdentity, result: GenerationAnswer): TChatCompletion {
	const toolCalls = result.clientToolCalls ?? [];
	const message =
		toolCalls.length > 0
			? { role: "assistant" as const, content: result.message.content || null, refusal: null, tool_calls: toolCalls.map(wireToolCall) }
			: { role: "assistant" as const, content: result.message.content, refusal: null };
	return {
		id: identity.id,
		object: "chat.completion",
		created: unixSeconds(),
		model: identity.model,
		choices: [{ index: 0, message, finish_reason: openAiFinishReason(result.finishReason), logprobs: null }],
		usage: openAiUsage(result.usage),
		...(identity.served ? { assistant: identity.served } : {}),
	};
}

/** `data: <json>\n\n`: OpenAI's chunks carry no event name. */
const dataFrame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/**
 * Our stream events as OpenAI's `chat.completion.chunk` frames: the first carries the assistant
 * role, then one per delta, then one with the finish reason, then (with include_usage) one with no
 * choices and the usage, then `data: [DONE]`. Our usage event comes before `finish`, OpenAI's after
 * it, so usage is held until the finish. A failure after the stream opened is OpenAI's error object
 * in an `error` event (OpenAI SDKs raise it; the idempotency layer reads the event name).
 */
export function chunkEncoder(identity: CompletionIdentity, includeUsage: boolean): SseEncoder {
	const created = unixSeconds();
	// With include_usage, OpenAI sends `usage: null` on every chunk but the last.
	const head = (extra: Record<string, unknown>) => ({ id: identity.id, object: "chat.completion.chunk", created, model: identity.model, ...extra, ...(includeUsage ? { usage: null } : {}) });
	let opened = false;
	let usage: TokenUsage | undefined;
	// OpenAI numbers a choice's tool calls by `index`; each call arrives whole here, in one frame.
	let toolCallIndex = 0;
	const open = (): string => {
		if (opened) return "";
		opened = true;
		return dataFrame({ ...head({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }] }), ...(identity.served ? { assistant: identity.served } : {}) });
	};
	return {
		event(event: GenerationStreamEvent): string {
			switch (event.type) {
				case "tool_call":
					if (!identity.clientTools) return open();
					return open() + dataFrame(head({ choices: [{ index: 0, delta: { tool_calls: [{ index: toolCallIndex++, ...wireToolCall(event) }] }, finish_reason: null, logprobs: null }] }));
				case "tool_result":
					return open();
				case "delta":
					return open() + dataFrame(head({ choices: [{ index: 0, delta: { content: event.content }, finish_reason: null, logprobs: null }] }));
				case "usage":
					usage = event;
					return open();
				case "finish": {
					const finish = open() + dataFrame(head({ choices: [{ index: 0, delta: {}, finish_reason: openAiFinishReason(event.finishReason), logprobs: null }] }));
					if (!includeUsage || !usage) return finish;
					return finish + dataFrame({ id: identity.id, object: "chat.completion.chunk", created, model: identity.model, choices: [], usage: openAiUsage(usage) });
				}
			}
		},
		error(error: unknown): string {
			const known = error instanceof AppError ? error : new AppError("INTERNAL_ERROR", "Internal error while streaming");
			return formatSseFrame("error", openAiErrorBody(known));
		},
		end: () => "data: [DONE]\n\n",
	};
}

/** Our runtime models as OpenAI's model list. */
export function presentModelList(models: RuntimeModel[]): TOpenAiModelList {
	return {
		object: "list",
		data: models.map((model) => ({
			id: model.name,
			object: "model" as const,
			created: model.createdAt ? Math.floor(model.createdAt.getTime() / 1000) : 0,
			owned_by: model.kind === "assistant" ? "workspace" : (model.provider ?? "provider"),
		})),
	};
}
