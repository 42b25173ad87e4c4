/**
 * `stream: true` on /v1/chat/completions, read with the official `openai` Node SDK's stream helpers:
 * chat.completion.chunk frames ending in `data: [DONE]`, usage in a last chunk when asked, the same
 * text as the answer not streamed, a provider failure mid-stream raised by the SDK, and a client
 * that hangs up cancelling the provider's request.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { useRuntimeTestbed } from "../runtime/runtime-fixtures";
import { openAiClient, workspaceWithAssistant } from "./openai-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const PIECES = ["Your ", "order ", "left ", "yesterday."];

describe("streamed chat completions with the openai SDK", () => {
	it("streams the same text as the answer not streamed, with usage in the last chunk, through the SDK's stream helper", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const client = openAiClient(platform, apiKey);
		const usage = { prompt_tokens: 21, completion_tokens: 4 };
		standIn.script({ kind: "completion", content: PIECES, usage }, { kind: "completion", content: PIECES, usage });
		const request = { model: "support-bot", messages: [{ role: "user" as const, content: "Where is my order?" }] };
		const plain = await client.chat.completions.create(request);

		const stream = client.chat.completions.stream({ ...request, stream: true, stream_options: { include_usage: true } });
		const chunks: OpenAI.ChatCompletionChunk[] = [];
		for await (const chunk of stream) chunks.push(chunk);
		const final = await stream.finalChatCompletion();

		expect(await stream.finalContent()).toBe(plain.choices[0].message.content);
		expect(final.choices[0].finish_reason).toBe("stop");
		expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe(PIECES.join(""));
		expect(chunks[0].choices[0].delta.role).toBe("assistant");
		const last = chunks.at(-1) as OpenAI.ChatCompletionChunk;
		expect(last.choices).toEqual([]);
		expect(last.usage).toEqual({ prompt_tokens: 21, completion_tokens: 4, total_tokens: 25 });
		expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
		// Every chunk names the generation's trace; the first the version that answered.
		const traceIds = new Set(chunks.map((chunk) => chunk.id));
		expect(traceIds.size).toBe(1);
		expect([...traceIds][0]).toMatch(/^trace_/);
		expect(chunks[0]).toMatchObject({ assistant: { slug: "support-bot", version: 1, environment: "production" } });
		expect(standIn.requests[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
	});

	it("writes OpenAI's frames on the wire: headers naming the trace and version, no usage unless asked, then data: [DONE]", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["Hi", "!"] });
		const response = await fetch(`${platform.url}/v1/chat/completions`, {
			method: "POST",
			headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
			body: JSON.stringify({ model: "support-bot@staging", messages: [{ role: "user", content: "Hello" }], variables: { company: "Acme" }, stream: true }),
		});
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toBe("text/event-stream");
		expect(response.headers.get("x-assistant-version")).toBe("2");
		expect(response.headers.get("x-assistant-environment")).toBe("staging");
		const traceId = response.headers.get("x-trace-id");
		const text = await response.text();
		expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
		const frames = text
			.split("\n\n")
			.filter(Boolean)
			.map((frame) => frame.replace(/^data: /, ""));
		expect(frames.at(-1)).toBe("[DONE]");
		const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame));
		expect(chunks.map((chunk) => chunk.choices[0])).toEqual([
			{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null },
			{ index: 0, delta: { content: "Hi" }, finish_reason: null, logprobs: null },
			{ index: 0, delta: { content: "!" }, finish_reason: null, logprobs: null },
			{ index: 0, delta: {}, finish_reason: "stop", logprobs: null },
		]);
		for (const chunk of chunks) {
			expect(chunk).toMatchObject({ id: traceId, object: "chat.completion.chunk", model: "support-bot@staging" });
			expect(chunk).not.toHaveProperty("usage");
		}
	});

	it("raises a provider failure after the stream opened as the SDK's APIError, carrying the catalog code", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["partial ", "answer"], failAfterChunks: 1 });
		const stream = await openAiClient(platform, apiKey).chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }], stream: true });
		let text = "";
		let failure: unknown;
		try {
			for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
		} catch (error) {
			failure = error;
		}
		expect(text).toBe("partial ");
		expect(failure).toBeInstanceOf(OpenAI.APIError);
		expect(failure).toMatchObject({ code: "INTERNAL_ERROR", type: "server_error" });
		expect((failure as Error).message).toContain("openai");
	});

	it("cancels the provider's request when the client aborts the stream, and traces it as cancelled", async () => {
		const { apiKey, workspaceId } = await workspaceWithAssistant(platform, standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["first ", "never"], hangAfterChunks: 1 });
		const stream = await openAiClient(platform, apiKey).chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }], stream: true });
		const received: string[] = [];
		for await (const chunk of stream) {
			const content = chunk.choices[0]?.delta.content;
			if (content) {
				received.push(content);
				stream.controller.abort();
			}
		}
		expect(received).toEqual(["first "]);
		await standIn.waitForClientClose(standIn.requests[0]);
		await platform.services.traces.flush();
		const [trace] = await platform.orm.em.fork().getConnection().execute("select streamed, output, error_message from traces where workspace = ?", [workspaceId]);
		expect(trace).toMatchObject({ streamed: true, output: "first ", error_message: expect.stringMatching(/cancelled/) });
	});
});
