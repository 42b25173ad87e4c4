import { describe, expect, it } from "vitest";
import { readChunk, readCompletion } from "../../server/providers/openai/read-completion";

describe("reading OpenAI completions and stream chunks", () => {
	it("reads the first choice and the usage of a completion, ignoring fields it does not know", () => {
		const body = {
			id: "chatcmpl-1",
			choices: [
				{ index: 0, message: { role: "assistant", content: "Hi", refusal: null }, finish_reason: "length", logprobs: null },
				{ index: 1, message: { role: "assistant", content: "Other" }, finish_reason: "stop" },
			],
			usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9, prompt_tokens_details: { cached_tokens: 0 } },
		};
		expect(readCompletion(body)).toEqual({ content: "Hi", finishReason: "length", toolCalls: [], usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9 } });
	});

	it("takes null content as empty, a missing usage as unknown, and a missing total as the sum", () => {
		expect(readCompletion({ choices: [{ message: { content: null }, finish_reason: null }] })).toEqual({ content: "", finishReason: null, toolCalls: [], usage: null });
		expect(readCompletion({ choices: [{ message: {} }], usage: { prompt_tokens: 3, completion_tokens: 4 } })?.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
	});

	it("rejects completions without the documented shape", () => {
		for (const body of [
			null,
			"text",
			[],
			{},
			{ choices: [] },
			{ choices: {} },
			{ choices: [null] },
			{ choices: [{ finish_reason: "stop" }] },
			{ choices: [{ message: "Hi" }] },
			{ choices: [{ message: { content: 42 } }] },
			{ choices: [{ message: { content: "Hi" }, finish_reason: 1 }] },
			{ choices: [{ message: { content: "Hi" } }], usage: { prompt_tokens: "7", completion_tokens: 2 } },
			{ choices: [{ message: { content: "Hi" } }], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: "9" } },
			{ choices: [{ message: { content: "Hi" } }], usage: 12 },
		]) {
			expect(readCompletion(body), JSON.stringify(body)).toBeUndefined();
		}
	});

	it("reads deltas, finish reasons and the usage-only last chunk", () => {
		expect(readChunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }] })).toEqual({ content: "Hel", finishReason: null, toolCalls: [], usage: null });
		expect(readChunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })).toEqual({ content: undefined, finishReason: "stop", toolCalls: [], usage: null });
		expect(readChunk({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } })).toEqual({
			content: undefined,
			finishReason: undefined,
			toolCalls: [],
			usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
		});
		expect(readChunk({ choices: [{ delta: null, finish_reason: "stop" }] })?.finishReason).toBe("stop");
	});

	it("rejects chunks without the documented shape", () => {
		for (const body of [null, [], { choices: "x" }, { choices: [3] }, { choices: [{ delta: "Hel" }] }, { choices: [{ delta: { content: 5 } }] }, { choices: [{ delta: {}, finish_reason: false }] }, { choices: [], usage: { completion_tokens: 2 } }]) {
			expect(readChunk(body), JSON.stringify(body)).toBeUndefined();
		}
	});
});
