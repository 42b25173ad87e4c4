import type { ChatMessage, FinishReason, GenerationOutput, ProviderStreamEvent, TokenUsage, ToolCall } from "../providers/types";
import { EMPTY_USAGE } from "../providers/types";
import type { PlatformMetrics } from "../observability/metrics";
import type { GenerationTrace } from "../observability/tracing-types";
import type { Toolbox, ToolCallRecord } from "./toolbox";

/**
 * The tool loop, read as steps (after vercel/ai's generate-text): call the model with the tools
 * offered; if it asked for tools, run that turn's calls together and append the calls and their
 * results (as `tool` messages: untrusted text, never the system prompt); repeat until it answers in
 * text or the step budget is spent, in which case the answer ends with `finishReason: tool_calls`.
 */

/** One step of a generation, as its trace records it. */
export type GenerationStep =
	| { type: "model"; step: number; inputTokens: number; outputTokens: number; finishReason: FinishReason; latencyMs: number; toolCalls: number }
	| { type: "tool"; step: number; id: string; name: string; arguments: unknown; ok: boolean; error?: string; size: number; latencyMs: number };

export interface LoopState {
	usage: TokenUsage;
	steps: GenerationStep[];
	toolCalls: ToolCallRecord[];
}

export function newLoopState(): LoopState {
	return { usage: { ...EMPTY_USAGE }, steps: [], toolCalls: [] };
}

function addUsage(state: LoopState, usage: TokenUsage) {
	state.usage = { inputTokens: state.usage.inputTokens + usage.inputTokens, outputTokens: state.usage.outputTokens + usage.outputTokens, totalTokens: state.usage.totalTokens + usage.totalTokens };
}

/** The stop condition: tools were asked for, and the budget allows running them. */
function shouldRunTools(toolCalls: ToolCall[], step: number, maxToolSteps: number): boolean {
	return toolCalls.length > 0 && step <= maxToolSteps;
}

/** The messages that carry a turn's calls and their results to the next model call. */
function appendTurn(messages: ChatMessage[], content: string, calls: ToolCall[], results: ToolCallRecord[]) {
	messages.push({ role: "assistant", content, toolCalls: calls });
	for (const result of results) messages.push({ role: "tool", toolCallId: result.id, name: result.name, content: result.ok ? result.content : `Error: ${result.content}` });
}

function recordTools(state: LoopState, step: number, results: ToolCallRecord[]) {
	for (const result of results) {
		state.toolCalls.push(result);
		state.steps.push({ type: "tool", step, id: result.id, name: result.name, arguments: result.arguments, ok: result.ok, ...(result.error ? { error: result.error } : {}), size: result.size, latencyMs: result.latencyMs });
	}
}

export interface LoopOptions {
	messages: ChatMessage[];
	toolbox: Toolbox;
	maxToolSteps: number;
	signal: AbortSignal;
	state: LoopState;
	/** Each call counted by tool kind (assistant_tool_calls_total). */
	metrics?: Pick<PlatformMetrics, "recordToolCall">;
	/** The generation's span, when tracing is on: each call runs in a child span of it. */
	tracing?: GenerationTrace;
}

/** A turn's calls, run together (results in the calls' order), each counted and, with tracing, in a span of its own. */
function runTurn(options: LoopOptions, calls: ToolCall[]): Promise<ToolCallRecord[]> {
	const { toolbox, signal, metrics, tracing } = options;
	return Promise.all(
		calls.map(async (call) => {
			const kind = toolbox.kindOf(call.name);
			const run = () => toolbox.run(call, signal);
			// A name no tool has is the model's text: the span names it "unknown", as the metrics do.
			const result = tracing ? await tracing.runTool({ name: kind === "unknown" ? "unknown" : call.name, kind, callId: call.id }, run) : await run();
			metrics?.recordToolCall(kind, result.ok ? "success" : "failure");
			return result;
		}),
	);
}

/** Non-streaming: `callModel` makes one model call (retries included) with these messages. */
export async function runToolLoop(options: LoopOptions, callModel: (messages: ChatMessage[]) => Promise<GenerationOutput>): Promise<GenerationOutput> {
	const { state } = options;
	const messages = [...options.messages];
	for (let step = 1; ; step++) {
		const startedAt = performance.now();
		const output = await callModel(messages);
		addUsage(state, output.usage);
		state.steps.push({ type: "model", step, ...output.usage, finishReason: output.finishReason, latencyMs: Math.round(performance.now() - startedAt), toolCalls: output.toolCalls.length });
		if (!shouldRunTools(output.toolCalls, step, options.maxToolSteps)) {
			const finishReason = output.toolCalls.length > 0 ? "tool_calls" : output.finishReason;
			return { content: output.content, finishReason, usage: state.usage, toolCalls: output.toolCalls };
		}
		const results = await runTurn(options, output.toolCalls);
		recordTools(state, step, results);
		appendTurn(messages, output.content, output.toolCalls, results);
	}
}

/** What a streamed loop yields: the model's deltas and tool calls, each call's result, then one usage and one finish. */
export type LoopStreamEvent = ProviderStreamEvent | { type: "tool_result"; id: string; name: string; ok: boolean; error?: string };

/**
 * Streaming: `streamModel` streams one model call. Per step, deltas and tool calls pass through as
 * they come; the steps' usage is summed into one `usage` event and only the last step's finish is
 * yielded, so a client sees one answer.
 */
export async function* streamToolLoop(options: LoopOptions, streamModel: (messages: ChatMessage[]) => AsyncIterable<ProviderStreamEvent>): AsyncGenerator<LoopStreamEvent, void, undefined> {
	const { toolbox, state } = options;
	const messages = [...options.messages];
	for (let step = 1; ; step++) {
		const startedAt = performance.now();
		let content = "";
		let usage: TokenUsage = { ...EMPTY_USAGE };
		let finishReason: FinishReason = "stop";
		const calls: ToolCall[] = [];
		for await (const event of streamModel(messages)) {
			if (event.type === "delta") {
				content += event.content;
				yield event;
			} else if (event.type === "tool_call") {
				calls.push({ id: event.id, name: event.name, arguments: event.arguments });
			} else if (event.type === "usage") {
				usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens };
			} else {
				finishReason = event.finishReason;
			}
		}
		addUsage(state, usage);
		state.steps.push({ type: "model", step, ...usage, finishReason, latencyMs: Math.round(performance.now() - startedAt), toolCalls: calls.length });
		if (!shouldRunTools(calls, step, options.maxToolSteps)) {
			yield { type: "usage", ...state.usage };
			yield { type: "finish", finishReason: calls.length > 0 ? "tool_calls" : finishReason };
			return;
		}
		for (const call of calls) yield { type: "tool_call", id: call.id, name: call.name, arguments: toolbox.redact(call.arguments) };
		const results = await runTurn(options, calls);
		recordTools(state, step, results);
		for (const result of results) yield { type: "tool_result", id: result.id, name: result.name, ok: result.ok, ...(result.error ? { error: result.error } : {}) };
		appendTurn(messages, content, calls, results);
	}
}
