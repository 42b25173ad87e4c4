import type { ToolCall, TokenUsage } from "../types";

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
	toolCalls: ToolCall[];
}

/** `message.tool_calls`: `[{id, type: "function", function: {name, arguments}}]`; undefined when malformed. */
function readToolCalls(value: unknown): ToolCall[] | undefined {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) return undefined;
	const calls: ToolCall[] = [];
	for (const item of value as unknown[]) {
		if (!isObject(item) || typeof item.id !== "string" || !isObject(item.function)) return undefined;
		const { name, arguments: args } = item.function;
		if (typeof name !== "string" || !isNullishString(args)) return undefined;
		calls.push({ id: item.id, name, arguments: args ?? "" });
	}
	return calls;
}

/** One fragment of a streamed tool call: the first of an index carries id and name, later ones more argument text. */
export interface ToolCallFragment {
	index: number;
	id?: string;
	name?: string;
	arguments?: string;
}

function readToolCallFragments(value: unknown): ToolCallFragment[] | undefined {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) return undefined;
	const fragments: ToolCallFragment[] = [];
	for (const [position, item] of (value as unknown[]).entries()) {
		if (!isObject(item)) return undefined;
		const fn = item.function;
		if (fn !== undefined && fn !== null && !isObject(fn)) return undefined;
		const name = fn?.name;
		const args = fn?.arguments;
		if (!isNullishString(item.id) || !isNullishString(name) || !isNullishString(args)) return undefined;
		// OpenAI always sends `index`; a server that sends whole calls without one numbers them by position.
		const index = typeof item.index === "number" ? item.index : position;
		fragments.push({ index, id: item.id ?? undefined, name: name ?? undefined, arguments: args ?? undefined });
	}
	return fragments;
}

/** `{choices: [{message: {content}, finish_reason}], usage}`, at least one choice; the first is used. */
export function readCompletion(body: unknown): CompletionParts | undefined {
	if (!isObject(body) || !Array.isArray(body.choices) || body.choices.length === 0) return undefined;
	const choice: unknown = body.choices[0];
	if (!isObject(choice) || !isObject(choice.message) || !isNullishString(choice.message.content) || !isNullishString(choice.finish_reason)) return undefined;
	const usage = readUsage(body.usage);
	if (usage === undefined) return undefined;
	const toolCalls = readToolCalls(choice.message.tool_calls);
	if (!toolCalls) return undefined;
	return { content: choice.message.content ?? "", finishReason: choice.finish_reason, usage, toolCalls };
}

export interface ChunkParts {
	content: string | null | undefined;
	finishReason: string | null | undefined;
	usage: TokenUsage | null;
	toolCalls: ToolCallFragment[];
}

/** `{choices: [{delta: {content}, finish_reason}], usage}`; the final usage-only chunk has no choices. */
export function readChunk(body: unknown): ChunkParts | undefined {
	if (!isObject(body)) return undefined;
	const usage = readUsage(body.usage);
	if (usage === undefined) return undefined;
	if (body.choices === undefined || (Array.isArray(body.choices) && body.choices.length === 0)) return { content: undefined, finishReason: undefined, usage, toolCalls: [] };
	if (!Array.isArray(body.choices)) return undefined;
	const choice: unknown = body.choices[0];
	if (!isObject(choice) || !isNullishString(choice.finish_reason)) return undefined;
	const delta = choice.delta;
	if (delta !== undefined && delta !== null && (!isObject(delta) || !isNullishString(delta.content))) return undefined;
	const toolCalls = readToolCallFragments(isObject(delta) ? delta.tool_calls : undefined);
	if (!toolCalls) return undefined;
	return { content: delta?.content as string | null | undefined, finishReason: choice.finish_reason, usage, toolCalls };
}

/**
 * Streamed tool calls arrive in fragments keyed by `index` (OpenAI: id and name first, then the
 * arguments in pieces); they are whole once the stream finishes. Mistral sends each call whole.
 */
export class ToolCallAssembler {
	private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

	push(fragment: ToolCallFragment): void {
		const call = this.calls.get(fragment.index);
		if (!call) {
			this.calls.set(fragment.index, { id: fragment.id ?? "", name: fragment.name ?? "", arguments: fragment.arguments ?? "" });
			return;
		}
		if (fragment.id) call.id = fragment.id;
		if (fragment.name && !call.name) call.name = fragment.name;
		if (fragment.arguments) call.arguments += fragment.arguments;
	}

	/** The calls in index order; a call with no name is malformed (undefined). */
	finish(): ToolCall[] | undefined {
		const calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
		return calls.every((call) => call.name !== "") ? calls : undefined;
	}
}
