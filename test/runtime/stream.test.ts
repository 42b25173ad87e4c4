import { describe, expect, it } from "vitest";
import { parseSseFrames, type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { type TestPlatform } from "../helpers/platform";
import { executeBody, PROVIDER_KEY, workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

async function stream(key: string, body: unknown) {
	const response = await platform.request("POST", "/runtime/stream", { key, body });
	const text = await response.text();
	expect(text).not.toContain(PROVIDER_KEY);
	return { status: response.status, headers: response.headers, text };
}

describe("POST /runtime/stream", () => {
	it("sends delta, usage and done frames in the spec's format with SSE headers", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["Hel", "lo", "!"], usage: { prompt_tokens: 5, completion_tokens: 3 } });
		const result = await stream(apiKey, executeBody({ config: { temperature: 0.5 } }));
		expect(result.status).toBe(200);
		expect(result.headers.get("content-type")).toBe("text/event-stream");
		expect(result.headers.get("cache-control")).toBe("no-cache");
		expect(result.headers.get("x-accel-buffering")).toBe("no");
		expect(result.headers.get("connection")).toBe("keep-alive");
		const traceId = result.headers.get("x-trace-id");
		expect(traceId).toMatch(/^trace_[0-9A-Z]{26}$/);
		expect(result.text).toBe(
			[
				'event: delta\ndata: {"content":"Hel"}\n\n',
				'event: delta\ndata: {"content":"lo"}\n\n',
				'event: delta\ndata: {"content":"!"}\n\n',
				'event: usage\ndata: {"inputTokens":5,"outputTokens":3,"totalTokens":8}\n\n',
				`event: done\ndata: {"finishReason":"stop","traceId":"${traceId}"}\n\n`,
			].join(""),
		);
		expect(standIn.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0.5 });
	});

	it("flushes each delta as soon as the provider sends it", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		// The second delta comes 1.5 s after the first: buffering would hold the first back that long, and
		// a generous bound keeps a busy machine's scheduling out of the verdict.
		standIn.script({ kind: "completion", content: ["first", "second"], chunkDelayMs: 1500 });
		const response = await platform.request("POST", "/runtime/stream", { key: apiKey, body: executeBody() });
		const reader = (response.body as ReadableStream<Uint8Array>).getReader();
		const started = Date.now();
		const { value } = await reader.read();
		expect(new TextDecoder().decode(value)).toContain('"first"');
		expect(new TextDecoder().decode(value)).not.toContain('"second"');
		expect(Date.now() - started).toBeLessThan(1000);
		await reader.cancel();
	});

	it("answers with the JSON envelope when the provider fails before the first event", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 401 });
		const result = await stream(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(result.status).toBe(400);
		expect(result.headers.get("content-type")).toContain("application/json");
		expect(JSON.parse(result.text)).toMatchObject({ code: "INVALID_REQUEST", status: 400, message: expect.stringMatching(/^openai rejected the workspace's stored credential/) });

		const missing = await stream(apiKey, executeBody({ providerName: "mistral" }));
		expect(missing.status).toBe(400);
		expect(JSON.parse(missing.text).code).toBe("INVALID_REQUEST");
	});

	it("retries before the first event, then streams", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 503 }, { kind: "completion", content: ["ok"] });
		const result = await stream(apiKey, executeBody({ config: { maxRetries: 2 } }));
		expect(result.status).toBe(200);
		expect(parseSseFrames(result.text).map((frame) => frame.event)).toEqual(["delta", "usage", "done"]);
		expect(standIn.requests).toHaveLength(2);
	});

	it("ends with a terminal error event on a mid-stream failure, and never retries once output was streamed", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["one", "two", "three"], failAfterChunks: 2 });
		const result = await stream(apiKey, executeBody({ config: { maxRetries: 2 } }));
		expect(result.status).toBe(200);
		const frames = parseSseFrames(result.text);
		expect(frames.map((frame) => frame.event)).toEqual(["delta", "delta", "error"]);
		expect(frames[2].data).toMatchObject({ code: "INTERNAL_ERROR", retryable: true, providerName: "openai" });
		expect(typeof (frames[2].data as { message: string }).message).toBe("string");
		expect(standIn.requests).toHaveLength(1);
	});

	it("reads CRLF-framed SSE and ends with the provider's own words when it reports an error object mid-stream", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const chunk = (content: string) => `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\r\n\r\n`;
		standIn.script({
			kind: "raw",
			status: 200,
			headers: { "content-type": "text/event-stream" },
			body: `: comment\r\n\r\n${chunk("par")}${chunk("tial")}data: ${JSON.stringify({ error: { message: "The server had an error while processing your request", type: "server_error" } })}\r\n\r\n`,
		});
		const result = await stream(apiKey, executeBody());
		const frames = parseSseFrames(result.text);
		expect(frames.map((frame) => frame.event)).toEqual(["delta", "delta", "error"]);
		expect(frames.slice(0, 2).map((frame) => (frame.data as { content: string }).content)).toEqual(["par", "tial"]);
		expect(frames[2].data).toMatchObject({ code: "INTERNAL_ERROR", retryable: false, providerName: "openai" });
		expect((frames[2].data as { message: string }).message).toContain("The server had an error while processing your request");
	});

	it("times out mid-stream with a terminal INTERNAL_ERROR event, and 504 INTERNAL_ERROR before the first event", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["one", "two"], hangAfterChunks: 1 });
		const result = await stream(apiKey, executeBody({ config: { timeoutMs: 400 } }));
		const frames = parseSseFrames(result.text);
		expect(frames.map((frame) => frame.event)).toEqual(["delta", "error"]);
		expect(frames[1].data).toMatchObject({ code: "INTERNAL_ERROR", providerName: "openai", message: expect.stringContaining("400 ms timeout") });
		await standIn.waitForClientClose(standIn.requests[0], 1000);

		standIn.script({ kind: "hang" });
		const early = await stream(apiKey, executeBody({ config: { timeoutMs: 300 } }));
		expect(early.status).toBe(504);
		expect(JSON.parse(early.text)).toMatchObject({ code: "INTERNAL_ERROR", status: 504 });
	});

	it("closes the upstream connection within a second of the client aborting", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["a", "b", "c", "d", "e"], chunkDelayMs: 1000 });
		const controller = new AbortController();
		const response = await fetch(`${platform.url}/runtime/stream`, {
			method: "POST",
			headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
			body: JSON.stringify(executeBody()),
			signal: controller.signal,
		});
		const reader = (response.body as ReadableStream<Uint8Array>).getReader();
		await reader.read();
		const abortedAt = Date.now();
		controller.abort();
		const closedAt = await standIn.waitForClientClose(standIn.requests[0], 2000);
		expect(closedAt - abortedAt).toBeLessThan(1000);
	});

	it("streams through the Mistral adapter", async () => {
		const mistral = await startProviderStandIn({ dialect: "mistral" });
		try {
			const { apiKey } = await workspaceWithCredential(platform, "mistral", mistral.origin);
			mistral.script({ kind: "completion", content: ["Bon", "jour"], finishReason: "length", usage: { prompt_tokens: 3, completion_tokens: 2 } });
			const result = await stream(apiKey, executeBody({ providerName: "mistral", model: "mistral-small-latest" }));
			expect(parseSseFrames(result.text)).toEqual([
				{ event: "delta", data: { content: "Bon" } },
				{ event: "delta", data: { content: "jour" } },
				{ event: "usage", data: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
				{ event: "done", data: { finishReason: "length", traceId: result.headers.get("x-trace-id") } },
			]);
			expect(mistral.requests[0].body).toMatchObject({ stream: true, model: "mistral-small-latest" });
		} finally {
			await mistral.close();
		}
	});
});
