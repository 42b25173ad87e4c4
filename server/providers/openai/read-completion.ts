import type { TokenUsage } from "../types";

/**
 * The parts of OpenAI's chat completion and stream chunk that we read, checked by hand: they
 * arrive on every call, the checks are this small, and zod's generic object parsing of them was a
 * measurable share of a generation's CPU in bench/runtime.ts. Each reader returns undefined for a
 * body that does not have the documented shape; extra fields are ignored.
 */

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const isNullishString = (value: unknown): value is string | null | undefined => value === undefined || value === null || typeof value === "string";

/** `usage` as OpenAI sends it; `null` (absent) is allowed, `undefined` means malformed. */
function readUsage(value: unknown): TokenUsage | null | undefined {
	if (value === undefined || value === null) return null;
	if (!isObject(value)) return undefined;
	const { prompt_tokens: input, completion_tokens: output, total_tokens: total } = value;
	if (typeof input !== "number" || typeof output !== "number" || (total !== undefined && typeof total !== "number")) return undefined;
	return { inputTokens: input, outputTokens: output, totalTokens: total ?? input + output };
}

export interface CompletionParts {
	content: string;
	finishReason: string | null | undefined;
	usage: TokenUsage | null;
}

/** `{choices: [{message: {content}, finish_reason}], usage}`, at least one choice; the first is used. */
export function readCompletion(body: unknown): CompletionParts | undefined {
	if (!isObject(body) || !Array.isArray(body.choices) || body.choices.length === 0) return undefined;
	const choice: unknown = body.choices[0];
	if (!isObject(choice) || !isObject(choice.message) || !isNullishString(choice.message.content) || !isNullishString(choice.finish_reason)) return undefined;
	const usage = readUsage(body.usage);
	if (usage === undefined) return undefined;
	return { content: choice.message.content ?? "", finishReason: choice.finish_reason, usage };
}

export interface ChunkParts {
	content: string | null | undefined;
	finishReason: string | null | undefined;
	usage: TokenUsage | null;
}

/** `{choices: [{delta: {content}, finish_reason}], usage}`; the final usage-only chunk has no choices. */
export function readChunk(body: unknown): ChunkParts | undefined {
	if (!isObject(body)) return undefined;
	const usage = readUsage(body.usage);
	if (usage === undefined) return undefined;
	if (body.choices === undefined || (Array.isArray(body.choices) && body.choices.length === 0)) return { content: undefined, finishReason: undefined, usage };
	if (!Array.isArray(body.choices)) return undefined;
	const choice: unknown = body.choices[0];
	if (!isObject(choice) || !isNullishString(choice.finish_reason)) return undefined;
	const delta = choice.delta;
	if (delta !== undefined && delta !== null && (!isObject(delta) || !isNullishString(delta.content))) return undefined;
	return { content: delta?.content as string | null | undefined, finishReason: choice.finish_reason, usage };
}
