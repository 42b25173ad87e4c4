import { GENERATION_DEFAULTS, type TGenerationConfig, type TGenerationResult } from "../../../contract/schemas/runtime";
import type { ProviderName } from "../../db/entities";
import { ProviderError } from "../../providers/provider-error";
import type { ChatMessage, GenerationOutput, GenerationRequest, TokenUsage, ToolCall } from "../../providers/types";
import { type GenerationStep, type LoopStreamEvent, newLoopState, runToolLoop, streamToolLoop } from "../../tools/run-tool-loop";
import type { Toolbox, ToolCallRecord } from "../../tools/toolbox";
import { EMPTY_USAGE } from "../../providers/types";
import type { GenerationTrace, ProviderAttempt } from "../../observability/tracing-types";
import { newId } from "../../shared/ids";
import type { Principal } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";
import { type CallerPresence, GenerationDeadline } from "./generation-deadline";

/** What a streamed generation yields: the model's deltas, the tool calls and their results (with tools), one usage, one finish. */
export type GenerationStreamEvent = LoopStreamEvent;

/** Who asked, in which workspace and, for deployed assistants, what was served: carried into the trace. */
export interface GenerationOrigin {
	workspaceId: string;
	principal: Principal;
	/** Evaluations run a version (no environment) or the draft (no version). */
	assistant?: { assistantId: string; versionId: string | null; environment: string | null };
	/** A playground turn: an assistant's draft (versionId null) or a pinned version, not a deployment. */
	playground?: { assistantId: string; versionId: string | null };
	/**
	 * The trace's id, when the caller must name it (the runtime's answer, an evaluation result);
	 * otherwise a new one. The trace row is written under this id.
	 */
	traceId?: string;
}

/** A generation whose trace id was assigned up front, so that its answer can name it. */
export type TracedGenerationInput = GenerationInput & { origin: GenerationOrigin & { traceId: string } };

export interface GenerationInput {
	origin: GenerationOrigin;
	providerName: ProviderName;
	model: string;
	messages: ChatMessage[];
	config: TGenerationConfig;
	/** Provider request fields beyond the config that some callers set (the OpenAI-compatible surface). */
	options?: GenerationOptions;
	/** An assistant's tools, run on the server in a loop of at most `maxToolSteps` tool turns. */
	tools?: { toolbox: Toolbox; maxToolSteps: number };
}

/** `tools` / `toolChoice` here are the caller's own (client-side) tools: offered to the model, its calls returned, never run here. */
export type GenerationOptions = Pick<GenerationRequest, "jsonSchema" | "stop" | "seed" | "user" | "tools" | "toolChoice">;

/** A generation's answer; with client-side tools, the calls the model asked for (as it wrote them). */
export type GenerationAnswer = TGenerationResult & { clientToolCalls?: ToolCall[] };

/**
 * The transport's side of a generation: whether its caller is still there, and a call once the
 * generation reached its provider, from when it is traced whatever happens (the HTTP layer then
 * names the trace in its headers, errors included).
 */
export interface GenerationCaller extends CallerPresence {
	started?(): void;
}

/** What a finished (or failed) generation reports; traces are built from it. */
export interface GenerationOutcome {
	/** The id the trace is written under. */
	traceId: string;
	input: GenerationInput;
	streamed: boolean;
	startedAt: number;
	latencyMs: number;
	timeToFirstTokenMs: number | null;
	output: string;
	usage: TokenUsage;
	finishReason: string | null;
	error: ProviderError | null;
	attempts: number;
	/** With tools: each model call and tool call, in order (secrets redacted). */
	steps?: GenerationStep[];
	/** The generation's OpenTelemetry span, when tracing is on: the trace writer ends it with the outcome. */
	tracing?: GenerationTrace;
}

/** One provider call as its span tells it: when, how it ended, and whether it was worth another. */
function attemptOf(attempt: number, startedAt: number, failure: ProviderError | null): ProviderAttempt {
	return {
		attempt,
		startedAt,
		endedAt: Date.now(),
		errorKind: failure?.kind ?? null,
		retryable: failure?.retryable ?? false,
		...(failure?.upstreamStatus === undefined ? {} : { httpStatus: failure.upstreamStatus }),
	};
}

function toProviderRequest(input: GenerationInput, messages: ChatMessage[] = input.messages): GenerationRequest {
	return {
		model: input.model,
		messages,
		...(input.tools ? { tools: input.tools.toolbox.definitions, toolChoice: "auto" as const } : {}),
		temperature: input.config.temperature,
		maxOutputTokens: input.config.maxOutputTokens,
		responseFormat: input.config.responseFormat,
		...input.options,
	};
}

function asProviderError(error: unknown, providerName: string): ProviderError {
	if (error instanceof ProviderError) return error;
	return new ProviderError("server_error", providerName, `${providerName} failed unexpectedly`, { cause: error, retryable: false });
}

/**
 * POST /runtime/execute and the assistant endpoint: one answer, retried on transient failures.
 * Every generation, failed ones too, is traced (off the response path) and its cost counted.
 */
export async function executeGeneration(context: UseCaseContext, input: GenerationInput, caller?: GenerationCaller): Promise<GenerationAnswer> {
	const { services } = context;
	const adapter = await services.providers.forWorkspace(() => context.em, input.origin.workspaceId, input.providerName);
	const traceId = input.origin.traceId ?? newId("trace");
	caller?.started?.();
	const deadline = new GenerationDeadline(input.config.timeoutMs ?? GENERATION_DEFAULTS.timeoutMs, caller);
	const maxRetries = input.config.maxRetries ?? GENERATION_DEFAULTS.maxRetries;
	const startedAt = Date.now();
	const tracing = services.observability.tracing?.startGeneration({ provider: input.providerName, model: input.model, startedAt });
	let attempts = 0;
	const report = (partial: Partial<GenerationOutcome>) =>
		services.traces.record({
			traceId,
			input,
			streamed: false,
			startedAt,
			latencyMs: Date.now() - startedAt,
			timeToFirstTokenMs: null,
			output: "",
			usage: { ...EMPTY_USAGE },
			finishReason: null,
			error: null,
			attempts,
			tracing,
			...partial,
		});
	// A caller that can be answered is told the server is stopping; other generations are waited for.
	const stoppable = caller ? deadline : undefined;
	services.generations.enter(stoppable);
	const loop = newLoopState();
	// One model call, retried on transient failures within the one deadline.
	const callModel = async (messages: ChatMessage[]): Promise<GenerationOutput> => {
		for (let retry = 1; ; retry++) {
			attempts += 1;
			const attemptStartedAt = tracing ? Date.now() : 0;
			try {
				const output = await adapter.generate(toProviderRequest(input, messages), deadline.signal);
				tracing?.attempt(attemptOf(attempts, attemptStartedAt, null));
				return output;
			} catch (error) {
				const failure = deadline.explain(asProviderError(error, input.providerName));
				tracing?.attempt(attemptOf(attempts, attemptStartedAt, failure));
				const delay = deadline.retryDelay(failure, retry, maxRetries);
				if (delay === undefined) throw failure;
				await deadline.sleep(delay);
			}
		}
	};
	try {
		const output = input.tools
			? await runToolLoop(
					{ messages: input.messages, toolbox: input.tools.toolbox, maxToolSteps: input.tools.maxToolSteps, signal: deadline.signal.toAbortSignal(), state: loop, metrics: services.observability.metrics, tracing },
					callModel,
				)
			: await callModel(input.messages);
		const steps = input.tools ? loop.steps : undefined;
		report({ output: output.content, usage: output.usage, finishReason: output.finishReason, timeToFirstTokenMs: Date.now() - startedAt, steps });
		return {
			message: { role: "assistant", content: output.content },
			finishReason: output.finishReason,
			usage: output.usage,
			traceId,
			...(input.tools ? { toolCalls: loop.toolCalls.map(presentToolCall) } : {}),
			...(input.options?.tools ? { clientToolCalls: output.toolCalls } : {}),
		};
	} catch (error) {
		const failure = deadline.explain(asProviderError(error, input.providerName));
		report({ error: failure, finishReason: "error", usage: loop.usage, steps: input.tools ? loop.steps : undefined });
		throw failure;
	} finally {
		deadline.dispose();
		services.generations.leave(stoppable);
	}
}

/** A tool call as the caller sees it: no result text (it may be large, and it is the model's input). */
function presentToolCall(record: ToolCallRecord) {
	return { id: record.id, name: record.name, arguments: record.arguments, ok: record.ok, ...(record.error ? { error: record.error } : {}), latencyMs: record.latencyMs };
}

/**
 * POST /runtime/stream: normalised events, retried on transient failures only until the first
 * event has been yielded (after that a retry would repeat output the caller has already seen).
 * A failure is thrown: before the first event the HTTP layer still answers with the JSON envelope,
 * after it with a terminal `error` event. Closing the generator (or the caller going away) closes
 * the upstream request at once.
 */
export async function* streamGeneration(context: UseCaseContext, input: GenerationInput, caller?: GenerationCaller): AsyncGenerator<LoopStreamEvent, void, undefined> {
	const { services } = context;
	const adapter = await services.providers.forWorkspace(() => context.em, input.origin.workspaceId, input.providerName);
	const traceId = input.origin.traceId ?? newId("trace");
	caller?.started?.();
	const deadline = new GenerationDeadline(input.config.timeoutMs ?? GENERATION_DEFAULTS.timeoutMs, caller);
	const maxRetries = input.config.maxRetries ?? GENERATION_DEFAULTS.maxRetries;
	const startedAt = Date.now();
	const tracing = services.observability.tracing?.startGeneration({ provider: input.providerName, model: input.model, startedAt });
	let attempts = 0;
	// With tracing: when the provider call under way began (null: none under way), so that one the reader abandons is still told.
	let attemptStartedAt: number | null = null;
	const beginAttempt = () => {
		attempts += 1;
		if (tracing) attemptStartedAt = Date.now();
	};
	const endAttempt = (failure: ProviderError | null) => {
		if (tracing && attemptStartedAt !== null) tracing.attempt(attemptOf(attempts, attemptStartedAt, failure));
		attemptStartedAt = null;
	};
	let emitted = false;
	let timeToFirstTokenMs: number | null = null;
	let output = "";
	let usage: TokenUsage = { ...EMPTY_USAGE };
	let finishReason: string | null = null;
	let failure: ProviderError | null = null;
	// A caller that can be answered is told the server is stopping; other generations are waited for.
	const stoppable = caller ? deadline : undefined;
	services.generations.enter(stoppable);
	const loop = newLoopState();
	try {
		if (input.tools) {
			// Each model call of the loop is retried until it has yielded something (then a retry would repeat output).
			const streamModel = async function* (messages: ChatMessage[]) {
				let stepEmitted = false;
				for (let retry = 1; ; retry++) {
					beginAttempt();
					try {
						for await (const event of adapter.stream(toProviderRequest(input, messages), deadline.signal)) {
							stepEmitted = true;
							yield event;
						}
						endAttempt(null);
						return;
					} catch (error) {
						const explained = deadline.explain(asProviderError(error, input.providerName));
						endAttempt(explained);
						const delay = stepEmitted ? undefined : deadline.retryDelay(explained, retry, maxRetries);
						if (delay === undefined) throw explained;
						await deadline.sleep(delay);
					}
				}
			};
			const loopOptions = {
				messages: input.messages,
				toolbox: input.tools.toolbox,
				maxToolSteps: input.tools.maxToolSteps,
				signal: deadline.signal.toAbortSignal(),
				state: loop,
				metrics: services.observability.metrics,
				tracing,
			};
			try {
				for await (const event of streamToolLoop(loopOptions, streamModel)) {
					if (event.type === "delta") {
						timeToFirstTokenMs ??= Date.now() - startedAt;
						output += event.content;
					} else if (event.type === "usage") {
						usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens };
					} else if (event.type === "finish") {
						finishReason = event.finishReason;
					}
					yield event;
				}
			} catch (error) {
				failure = deadline.explain(asProviderError(error, input.providerName));
				finishReason = "error";
				usage = loop.usage;
				throw failure;
			}
			return;
		}
		for (;;) {
			beginAttempt();
			try {
				for await (const event of adapter.stream(toProviderRequest(input), deadline.signal)) {
					emitted = true;
					if (event.type === "delta") {
						timeToFirstTokenMs ??= Date.now() - startedAt;
						output += event.content;
					} else if (event.type === "usage") {
						usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens };
					} else if (event.type === "finish") {
						finishReason = event.finishReason;
					}
					yield event;
				}
				endAttempt(null);
				return;
			} catch (error) {
				const explained = deadline.explain(asProviderError(error, input.providerName));
				endAttempt(explained);
				const delay = emitted ? undefined : deadline.retryDelay(explained, attempts, maxRetries);
				if (delay === undefined) {
					failure = explained;
					finishReason = "error";
					throw explained;
				}
				await deadline.sleep(delay);
			}
		}
	} finally {
		// Left early (the reader stopped, or a failure): make sure the upstream stream is closed.
		if (finishReason === null || failure) deadline.cancel();
		deadline.dispose();
		// A caller that went away mid-stream is recorded as such, not as a success.
		if (!failure && finishReason === null) failure = new ProviderError("aborted", input.providerName, "The caller cancelled the stream", { retryable: false });
		endAttempt(failure);
		if (input.tools && finishReason === null) usage = loop.usage;
		services.traces.record({
			traceId,
			input,
			streamed: true,
			startedAt,
			latencyMs: Date.now() - startedAt,
			timeToFirstTokenMs,
			output,
			usage,
			finishReason,
			error: failure,
			attempts,
			...(input.tools ? { steps: loop.steps } : {}),
			tracing,
		});
		services.generations.leave(stoppable);
	}
}
