/**
 * The two HTTP surfaces a generation can be asked for: the runtime's own (/runtime/execute,
 * /runtime/stream) and the OpenAI-compatible one (/v1/chat/completions). Behaviour that must be the
 * same on both (rate limits, spend quota, idempotency, traces) is tested once, as a scenario run
 * through each surface (`describe.each(GENERATION_SURFACES)`).
 */
export interface GenerationSurface {
	/** For test names. */
	name: string;
	/** The JSON generation's path. */
	path: string;
	/** The streamed generation's path (the same as `path` when the body asks for the stream). */
	streamPath: string;
	/** An ad-hoc generation on `openai` (model gpt-4o-mini unless named), saying "Say hello.". */
	body(options?: { model?: string; stream?: boolean; messages?: unknown[] }): Record<string, unknown>;
	/** Upstream attempts one failed call makes when each attempt fails transiently (the runtime's retry budget as the surface sets it). */
	failedAttempts: number;
	/** The catalog code and message of an error answer, whichever shape the surface answers in. */
	error(body: unknown): { code?: string; message?: string };
	/** The generated text of a JSON answer. */
	content(body: unknown): string;
	/** Whether a streamed answer ended normally. */
	streamCompleted(text: string): boolean;
}

const DEFAULT_MESSAGES = [{ role: "user", content: "Say hello." }];

export const RUNTIME_SURFACE: GenerationSurface = {
	name: "/runtime",
	path: "/runtime/execute",
	streamPath: "/runtime/stream",
	body: ({ model = "gpt-4o-mini", messages = DEFAULT_MESSAGES } = {}) => ({ providerName: "openai", model, messages, config: { maxRetries: 0 } }),
	failedAttempts: 1,
	error: (body) => body as { code?: string; message?: string },
	content: (body) => (body as { message: { content: string } }).message.content,
	streamCompleted: (text) => text.includes("event: done"),
};

export const OPENAI_COMPATIBLE_SURFACE: GenerationSurface = {
	name: "/v1 (OpenAI-compatible)",
	path: "/v1/chat/completions",
	streamPath: "/v1/chat/completions",
	body: ({ model = "gpt-4o-mini", stream, messages = DEFAULT_MESSAGES } = {}) => ({ model: `openai/${model}`, messages, ...(stream ? { stream: true } : {}) }),
	// OpenAI's request has no retry setting: the runtime's default budget (2 retries) applies.
	failedAttempts: 3,
	error: (body) => (body as { error?: { code?: string; message?: string } }).error ?? {},
	content: (body) => (body as { choices: { message: { content: string } }[] }).choices[0].message.content,
	streamCompleted: (text) => text.endsWith("data: [DONE]\n\n"),
};

export const GENERATION_SURFACES = [RUNTIME_SURFACE, OPENAI_COMPATIBLE_SURFACE];
