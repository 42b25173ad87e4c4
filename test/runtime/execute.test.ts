import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderStandIn, refusedPortUrl, startProviderStandIn } from "../helpers/provider-stand-in";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import type { TestPlatform } from "../helpers/platform";
import { executeBody, PROVIDER_KEY, workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

async function execute(key: string, body: unknown, headers?: Record<string, string>) {
	const response = await platform.request("POST", "/runtime/execute", { key, body, headers });
	const text = await response.text();
	expect(text).not.toContain(PROVIDER_KEY);
	return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

describe("POST /runtime/execute", () => {
	it("forwards messages in order and the generation config, and returns the normalised result", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "Hi there", usage: { prompt_tokens: 9, completion_tokens: 2 } });
		const messages = [
			{ role: "system", content: "Be brief." },
			{ role: "user", content: "Hello?" },
			{ role: "assistant", content: "Yes?" },
			{ role: "user", content: "Say hi." },
		];
		const result = await execute(apiKey, executeBody({ messages, config: { temperature: 0.3, maxOutputTokens: 42 } }));
		expect(result.status).toBe(200);
		expect(result.body).toEqual({
			message: { role: "assistant", content: "Hi there" },
			finishReason: "stop",
			usage: { inputTokens: 9, outputTokens: 2, totalTokens: 11 },
			traceId: expect.stringMatching(/^trace_[0-9A-Z]{26}$/),
		});
		expect(standIn.requests).toHaveLength(1);
		const [seen] = standIn.requests;
		expect(seen.path).toBe("/v1/chat/completions");
		expect(seen.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
		expect(seen.body.messages).toEqual(messages);
		expect(seen.body).toMatchObject({ model: "gpt-4o-mini", temperature: 0.3, max_completion_tokens: 42 });
		expect(seen.body.response_format).toBeUndefined();
	});

	it("switches on the provider's JSON mode for responseFormat json", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: '{"ok":true}' });
		const result = await execute(apiKey, executeBody({ config: { responseFormat: "json" } }));
		expect(result.status).toBe(200);
		expect(standIn.requests[0].body.response_format).toEqual({ type: "json_object" });
	});

	it("answers 400 INVALID_REQUEST naming the provider when the workspace has no credential for it", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const result = await execute(apiKey, executeBody({ providerName: "mistral", model: "mistral-small-latest" }));
		expect(result.status).toBe(400);
		expect(result.body.code).toBe("INVALID_REQUEST");
		expect(result.body.message).toContain("mistral");
		expect(standIn.requests).toHaveLength(0);
	});

	it("validates providerName, messages and temperature from the contract", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const unknownProvider = await execute(apiKey, executeBody({ providerName: "acme" }));
		expect(unknownProvider.status).toBe(400);
		expect(unknownProvider.body.code).toBe("VALIDATION_ERROR");
		expect(unknownProvider.body.fields.map((field: { field: string }) => field.field)).toContain("providerName");
		const empty = await execute(apiKey, executeBody({ messages: [] }));
		expect(empty.body.fields.map((field: { field: string }) => field.field)).toContain("messages");
		const hot = await execute(apiKey, executeBody({ config: { temperature: 3 } }));
		expect(hot.body.fields.map((field: { field: string }) => field.field)).toContain("config.temperature");
	});

	it.each([
		{ upstream: 401, status: 400, code: "INVALID_REQUEST", message: /^openai rejected the workspace's stored credential \(HTTP 401\); update it in the provider settings$/ },
		{ upstream: 403, status: 400, code: "INVALID_REQUEST", message: /^openai rejected the workspace's stored credential \(HTTP 403\)/ },
		{ upstream: 400, status: 400, code: "INVALID_REQUEST", message: /openai rejected the request.*does not exist/ },
		{ upstream: 404, status: 400, code: "INVALID_REQUEST", message: /openai rejected the request.*does not exist/ },
		{ upstream: 422, status: 400, code: "INVALID_REQUEST", message: /openai rejected the request.*does not exist/ },
		{ upstream: 500, status: 502, code: "INTERNAL_ERROR", message: /^openai failed with HTTP 500/ },
		{ upstream: 503, status: 502, code: "INTERNAL_ERROR", message: /^openai failed with HTTP 503/ },
	])("maps an upstream $upstream to $status $code, naming the provider", async ({ upstream, status, code, message }) => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.fallback = {
			kind: "error",
			status: upstream,
			message: upstream === 401 ? `Incorrect API key provided: ${PROVIDER_KEY}` : "The model `gpt-x` does not exist",
		};
		try {
			const result = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
			expect(result.status).toBe(status);
			expect(result.body).toMatchObject({ code, status });
			expect(result.body.message).toMatch(message);
			// The provider's wording of a bad key quotes the key; ours never does.
			expect(result.body.message).not.toContain(PROVIDER_KEY);
		} finally {
			standIn.fallback = { kind: "completion" };
		}
	});

	it("maps an upstream 429 to 429 RATE_LIMITED naming the provider, and forwards Retry-After", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 429, type: "rate_limit_exceeded", headers: { "retry-after": "7" } });
		const result = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(result.status).toBe(429);
		expect(result.body.code).toBe("RATE_LIMITED");
		expect(result.body.message).toMatch(/^openai rate-limited the workspace's credential/);
		expect(result.headers.get("retry-after")).toBe("7");
	});

	it("answers an upstream 429 without Retry-After with Retry-After: 1", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 429, type: "rate_limit_exceeded" });
		const result = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(result.status).toBe(429);
		expect(result.body.code).toBe("RATE_LIMITED");
		expect(result.headers.get("retry-after")).toBe("1");
	});

	it("maps a malformed answer to 502 INTERNAL_ERROR naming the provider", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "raw", status: 200, body: '{"choices":[]}' });
		const result = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(result.status).toBe(502);
		expect(result.body.code).toBe("INTERNAL_ERROR");
		expect(result.body.message).toMatch(/^openai sent a malformed answer/);
	});

	it("maps a refused connection to 503 INTERNAL_ERROR and a reset connection likewise", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", await refusedPortUrl());
		const refused = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(refused.status).toBe(503);
		expect(refused.body.code).toBe("INTERNAL_ERROR");
		expect(refused.body.message).toMatch(/^openai could not be reached \(ECONNREFUSED\)/);

		const other = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "reset" });
		const reset = await execute(other.apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(reset.status).toBe(503);
		expect(reset.body.code).toBe("INTERNAL_ERROR");
	});

	it("aborts the upstream request after config.timeoutMs with 504 INTERNAL_ERROR", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "hang" });
		const started = Date.now();
		const result = await execute(apiKey, executeBody({ config: { timeoutMs: 300, maxRetries: 0 } }));
		expect(result.status).toBe(504);
		expect(result.body.code).toBe("INTERNAL_ERROR");
		expect(result.body.message).toContain("300 ms timeout (config.timeoutMs)");
		expect(Date.now() - started).toBeLessThan(2000);
		await standIn.waitForClientClose(standIn.requests[0], 1000);
	});

	it("makes exactly one attempt with maxRetries 0", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 503 });
		const result = await execute(apiKey, executeBody({ config: { maxRetries: 0 } }));
		expect(result.status).toBe(502);
		expect(standIn.requests).toHaveLength(1);
	});

	it("makes three attempts on 503s with maxRetries 2, and succeeds when a retry does", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 503 }, { kind: "error", status: 503 }, { kind: "error", status: 503 });
		const failed = await execute(apiKey, executeBody({ config: { maxRetries: 2 } }));
		expect(failed.status).toBe(502);
		expect(standIn.requests).toHaveLength(3);

		standIn.reset();
		standIn.script({ kind: "error", status: 500 }, { kind: "reset" }, { kind: "completion", content: "third time lucky" });
		const recovered = await execute(apiKey, executeBody());
		expect(recovered.status).toBe(200);
		expect(recovered.body.message.content).toBe("third time lucky");
		expect(standIn.requests).toHaveLength(3);
	});

	it("honours Retry-After between attempts, but not past the timeout", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 429, headers: { "retry-after-ms": "400" } }, { kind: "completion", content: "after waiting" });
		const result = await execute(apiKey, executeBody({ config: { maxRetries: 1 } }));
		expect(result.status).toBe(200);
		expect(standIn.requests[1].receivedAt - standIn.requests[0].receivedAt).toBeGreaterThanOrEqual(390);

		standIn.reset();
		standIn.script({ kind: "error", status: 429, headers: { "retry-after": "30" } });
		const tooLong = await execute(apiKey, executeBody({ config: { maxRetries: 3, timeoutMs: 2000 } }));
		expect(tooLong.status).toBe(429);
		expect(tooLong.headers.get("retry-after")).toBe("30");
		expect(standIn.requests).toHaveLength(1);
	});

	it("does not retry a request the provider rejected as invalid", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 400 });
		await execute(apiKey, executeBody({ config: { maxRetries: 2 } }));
		expect(standIn.requests).toHaveLength(1);
	});

	it("uses a replaced credential from the next call on, although provider clients are cached", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		expect((await execute(workspace.apiKey, executeBody())).status).toBe(200);
		const replacement = await startProviderStandIn();
		try {
			await setProviderCredential(platform.operator(), {
				workspaceId: workspace.workspaceId,
				provider: "openai",
				apiKey: "sk-replacement-key",
				baseUrl: replacement.baseUrl,
			});
			expect((await execute(workspace.apiKey, executeBody())).status).toBe(200);
			expect(replacement.requests).toHaveLength(1);
			expect(replacement.requests[0].headers.authorization).toBe("Bearer sk-replacement-key");
			expect(standIn.requests).toHaveLength(1);
		} finally {
			await replacement.close();
		}
	});

	it("serves openai-compatible at the credential's base URL, with max_tokens", async () => {
		const compatible = await startProviderStandIn();
		try {
			const { apiKey } = await workspaceWithCredential(platform, "openai-compatible", `${compatible.origin}/custom/v1`);
			compatible.script({ kind: "completion", content: "compatible!" });
			const result = await execute(apiKey, executeBody({ providerName: "openai-compatible", model: "llama3", config: { maxOutputTokens: 5 } }));
			expect(result.status).toBe(200);
			expect(result.body.message.content).toBe("compatible!");
			expect(compatible.requests[0].path).toBe("/custom/v1/chat/completions");
			expect(compatible.requests[0].body).toMatchObject({ model: "llama3", max_tokens: 5 });
		} finally {
			await compatible.close();
		}
	});
});

describe("POST /runtime/execute through the Mistral adapter", () => {
	let mistral: ProviderStandIn;
	beforeAll(async () => {
		mistral = await startProviderStandIn({ dialect: "mistral" });
	});
	afterAll(async () => mistral.close());

	it("speaks Mistral's wire format, JSON mode included", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "mistral", mistral.origin);
		mistral.script({ kind: "completion", content: '{"a":1}', usage: { prompt_tokens: 4, completion_tokens: 3 } });
		const result = await execute(apiKey, executeBody({ providerName: "mistral", model: "mistral-small-latest", config: { responseFormat: "json", maxOutputTokens: 9, temperature: 0.1 } }));
		expect(result.status).toBe(200);
		expect(result.body).toEqual({
			message: { role: "assistant", content: '{"a":1}' },
			finishReason: "stop",
			usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 },
			traceId: result.headers.get("x-trace-id"),
		});
		const [seen] = mistral.requests;
		expect(seen.path).toBe("/v1/chat/completions");
		expect(seen.body).toMatchObject({ model: "mistral-small-latest", max_tokens: 9, temperature: 0.1, response_format: { type: "json_object" } });
		expect(seen.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
	});

	it("parses Mistral's error bodies and maps their statuses", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "mistral", `${mistral.origin}/v1`);
		mistral.script({ kind: "error", status: 400, message: "Invalid model: mistral-nope" });
		const invalid = await execute(apiKey, executeBody({ providerName: "mistral", model: "mistral-nope", config: { maxRetries: 0 } }));
		expect(invalid.status).toBe(400);
		expect(invalid.body.message).toContain("Invalid model: mistral-nope");

		mistral.script({ kind: "error", status: 429, headers: { "retry-after": "3" } });
		const limited = await execute(apiKey, executeBody({ providerName: "mistral", model: "m", config: { maxRetries: 0 } }));
		expect(limited.status).toBe(429);
		expect(limited.body.code).toBe("RATE_LIMITED");
		expect(limited.headers.get("retry-after")).toBe("3");

		mistral.script({ kind: "error", status: 401, message: `Unauthorized ${PROVIDER_KEY}` });
		const unauthorized = await execute(apiKey, executeBody({ providerName: "mistral", model: "m", config: { maxRetries: 0 } }));
		expect(unauthorized.status).toBe(400);
		expect(unauthorized.body.code).toBe("INVALID_REQUEST");
		expect(unauthorized.body.message).toMatch(/^mistral rejected the workspace's stored credential/);

		mistral.reset();
		mistral.script({ kind: "error", status: 503 }, { kind: "error", status: 503 }, { kind: "error", status: 503 });
		const unavailable = await execute(apiKey, executeBody({ providerName: "mistral", model: "m", config: { maxRetries: 2 } }));
		expect(unavailable.status).toBe(502);
		expect(unavailable.body.code).toBe("INTERNAL_ERROR");
		expect(mistral.requests).toHaveLength(3);
	});
});
