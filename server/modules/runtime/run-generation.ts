import { GENERATION_DEFAULTS, type TGenerationConfig, type TGenerationResult } from "../../../contract/schemas/runtime";
import type { ProviderName } from "../../db/entities";
import { ProviderError } from "../../providers/provider-error";
import type { ChatMessage, GenerationRequest, ProviderStreamEvent, TokenUsage } from "../../providers/types";
import { EMPTY_USAGE } from "../../providers/types";
import { newId } from "../../shared/ids";
import type { Principal } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";
import { type CallerPresence, GenerationDeadline } from "./generation-deadline";

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
}

export type GenerationOptions = Pick<GenerationRequest, "jsonSchema" | "stop" | "seed" | "user">;

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
}

function toProviderRequest(input: GenerationInput): GenerationRequest {
	return {
		model: input.model,
		messages: input.messages,
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
export async function executeGeneration(context: UseCaseContext, input: GenerationInput, caller?: GenerationCaller): Promise<TGenerationResult> {
	const { services } = context;
	const adapter = await services.providers.forWorkspace(() => context.em, input.origin.workspaceId, input.providerName);
	const traceId = input.origin.traceId ?? newId("trace");
	caller?.started?.();
	const deadline = new GenerationDeadline(input.config.timeoutMs ?? GENERATION_DEFAULTS.timeoutMs, caller);
	const maxRetries = input.config.maxRetries ?? GENERATION_DEFAULTS.maxRetries;
	const startedAt = Date.now();
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
			...partial,
		});
	// A caller that can be answered is told the server is stopping; other generations are waited for.
	const stoppable = caller ? deadline : undefined;
	services.generations.enter(stoppable);
	try {
		for (;;) {
			attempts += 1;
			try {
				const output = await adapter.generate(toProviderRequest(input), deadline.signal);
				report({ output: output.content, usage: output.usage, finishReason: output.finishReason, timeToFirstTokenMs: Date.now() - startedAt });
				return { message: { role: "assistant", content: output.content }, finishReason: output.finishReason, usage: output.usage, traceId };
			} catch (error) {
				const failure = deadline.explain(asProviderError(error, input.providerName));
				const delay = deadline.retryDelay(failure, attempts, maxRetries);
				if (delay === undefined) {
					report({ error: failure, finishReason: "error" });
					throw failure;
				}
				await deadline.sleep(delay);
			}
		}
	} finally {
		deadline.dispose();
		services.generations.leave(stoppable);
	}
}

/**
 * POST /runtime/stream: normalised events, retried on transient failures only until the first
 * event has been yielded (after that a retry would repeat output the caller has already seen).
 * A failure is thrown: before the first event the HTTP layer still answers with the JSON envelope,
 * after it with a terminal `error` event. Closing the generator (or the caller going away) closes
 * the upstream request at once.
 */
export async function* streamGeneration(context: UseCaseContext, input: GenerationInput, caller?: GenerationCaller): AsyncGenerator<ProviderStreamEvent, void, undefined> {
	const { services } = context;
	const adapter = await services.providers.forWorkspace(() => context.em, input.origin.workspaceId, input.providerName);
	const traceId = input.origin.traceId ?? newId("trace");
	caller?.started?.();
	const deadline = new GenerationDeadline(input.config.timeoutMs ?? GENERATION_DEFAULTS.timeoutMs, caller);
	const maxRetries = input.config.maxRetries ?? GENERATION_DEFAULTS.maxRetries;
	const startedAt = Date.now();
	let attempts = 0;
	let emitted = false;
	let timeToFirstTokenMs: number | null = null;
	let output = "";
	let usage: TokenUsage = { ...EMPTY_USAGE };
	let finishReason: string | null = null;
	let failure: ProviderError | null = null;
	// A caller that can be answered is told the server is stopping; other generations are waited for.
	const stoppable = caller ? deadline : undefined;
	services.generations.enter(stoppable);
	try {
		for (;;) {
			attempts += 1;
			try {
				for await (const event of adapter.stream(toProviderRequest(input), deadline.signal)) {
					emitted = true;
					if (event.type === "delta") {
						timeToFirstTokenMs ??= Date.now() - startedAt;
						output += event.content;
					} else if (event.type === "usage") {
						usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, totalTokens: event.totalTokens };
					} else {
						finishReason = event.finishReason;
					}
					yield event;
				}
				return;
			} catch (error) {
				const explained = deadline.explain(asProviderError(error, input.providerName));
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
		});
		services.generations.leave(stoppable);
	}
}
