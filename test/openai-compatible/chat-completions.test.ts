/**
 * POST /v1/chat/completions through the official `openai` Node SDK against the real server: a
 * deployed assistant by slug (in a non-default environment, with variables), an ad-hoc
 * provider/model, JSON mode and structured outputs, pass-through fields, and each error class the
 * SDK raises, with this server's catalog code in `code`.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { awayFromMinuteBoundary } from "../helpers/rate-limit-window";
import { useRuntimeTestbed, workspaceWithCredential } from "../runtime/runtime-fixtures";
import { openAiClient, workspaceWithAssistant } from "./openai-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const TRACE_ID = /^trace_[0-9A-Z]{26}$/;

/** What the SDK threw, for assertions on its class and fields. */
async function thrown(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
	try {
		await promise;
	} catch (error) {
		if (error instanceof OpenAI.APIError) return error;
		throw error;
	}
	throw new Error("expected the call to fail");
}

describe("POST /v1/chat/completions with the openai SDK", () => {
	it("runs a deployed assistant by slug@environment with variables: the version's prompt, then the caller's conversation", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		standIn.script({ kind: "completion", content: "It left yesterday.", usage: { prompt_tokens: 30, completion_tokens: 4 } });
		const client = openAiClient(platform, apiKey);
		const { data: completion, response } = await client.chat.completions
			.create({
				model: "support-bot@staging",
				messages: [
					{ role: "user", content: "Hi" },
					{ role: "assistant", content: "Hello, how can I help?" },
					{ role: "user", content: [{ type: "text", text: "Where is " }, { type: "text", text: "my order?" }] },
				],
				// @ts-expect-error `variables` is this server's own field; the SDK sends extra fields as given.
				variables: { company: "Acme" },
			})
			.withResponse();
		expect(completion).toMatchObject({
			object: "chat.completion",
			model: "support-bot@staging",
			choices: [{ index: 0, message: { role: "assistant", content: "It left yesterday." }, finish_reason: "stop" }],
			usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 },
			assistant: { slug: "support-bot", version: 2, environment: "staging" },
		});
		expect(completion.id).toMatch(TRACE_ID);
		expect(response.headers.get("x-trace-id")).toBe(completion.id);
		expect(response.headers.get("x-assistant-version")).toBe("2");
		expect(response.headers.get("x-assistant-environment")).toBe("staging");
		// The id is the trace's: the row written for this generation.
		await platform.services.traces.flush();
		const [trace] = await platform.orm.em.fork().getConnection().execute("select kind, environment, model, output from traces where id = ?", [completion.id]);
		expect(trace).toEqual({ kind: "assistant", environment: "staging", model: "model-two", output: "It left yesterday." });
		expect(standIn.requests[0].body).toMatchObject({
			model: "model-two",
			temperature: 0.3,
			messages: [
				{ role: "system", content: "You answer customers of Acme (tier 1)." },
				{ role: "user", content: "Hi" },
				{ role: "assistant", content: "Hello, how can I help?" },
				{ role: "user", content: "Where is my order?" },
			],
		});
	});

	it("runs the production deployment for a bare slug, and refuses variables the version does not declare", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const client = openAiClient(platform, apiKey);
		const completion = await client.chat.completions.create({ model: "support-bot", messages: [{ role: "developer", content: "Answer in French." }, { role: "user", content: "Hi" }] });
		expect(completion.choices[0].message.content).toBe("Hello from the stand-in");
		expect(completion).toMatchObject({ assistant: { version: 1, environment: "production" } });
		expect(standIn.requests[0].body).toMatchObject({
			model: "model-one",
			messages: [
				{ role: "system", content: "Be brief." },
				{ role: "system", content: "Answer in French." },
				{ role: "user", content: "Hi" },
			],
		});
		// @ts-expect-error `variables` is this server's own field.
		const refused = await thrown(client.chat.completions.create({ model: "support-bot@staging", messages: [{ role: "user", content: "Hi" }], variables: { tier: "gold" } }));
		expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
		expect(refused).toMatchObject({ status: 400, code: "VALIDATION_ERROR", param: "variables.company", type: "invalid_request_error" });
		expect(refused.message).toContain("variables.tier: Expected a number, got a string");
		expect(standIn.requests).toHaveLength(1);
	});

	it("runs an ad-hoc provider/model on the workspace's credential, passing stop, seed, user and the token cap", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "Bonjour", finishReason: "length" });
		const completion = await openAiClient(platform, apiKey).chat.completions.create({
			model: "openai/gpt-4.1-mini",
			messages: [{ role: "system", content: "Be terse." }, { role: "user", content: "Say hello in French." }],
			temperature: 0.5,
			max_completion_tokens: 12,
			stop: "\n\n",
			seed: 42,
			user: "end-user-7",
			n: 1,
		});
		expect(completion).toMatchObject({ model: "openai/gpt-4.1-mini", choices: [{ message: { content: "Bonjour" }, finish_reason: "length" }] });
		expect(completion).not.toHaveProperty("assistant");
		expect(standIn.requests[0].body).toMatchObject({
			model: "gpt-4.1-mini",
			messages: [
				{ role: "system", content: "Be terse." },
				{ role: "user", content: "Say hello in French." },
			],
			temperature: 0.5,
			max_completion_tokens: 12,
			stop: ["\n\n"],
			seed: 42,
			user: "end-user-7",
		});
	});

	it("JSON mode and structured outputs: the response format reaches the provider and the JSON comes back as content", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const client = openAiClient(platform, apiKey);
		standIn.script({ kind: "completion", content: '{"status":"shipped"}' }, { kind: "completion", content: '{"city":"Paris"}' });
		const jsonMode = await client.chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Status as JSON" }], response_format: { type: "json_object" } });
		expect(JSON.parse(jsonMode.choices[0].message.content ?? "")).toEqual({ status: "shipped" });
		expect(standIn.requests[0].body.response_format).toEqual({ type: "json_object" });
		const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
		const structured = await client.chat.completions.create({
			model: "openai/gpt-4.1-mini",
			messages: [{ role: "user", content: "Capital of France?" }],
			response_format: { type: "json_schema", json_schema: { name: "capital", schema, strict: true } },
		});
		expect(JSON.parse(structured.choices[0].message.content ?? "")).toEqual({ city: "Paris" });
		expect(standIn.requests[1].body.response_format).toEqual({ type: "json_schema", json_schema: { name: "capital", schema, strict: true } });
	});

	it("answers each error the SDK has a class for, in OpenAI's shape with the catalog code", async () => {
		const workspace = await workspaceWithAssistant(platform, standIn.baseUrl);
		const messages = [{ role: "user" as const, content: "Hi" }];

		const unauthenticated = await thrown(openAiClient(platform, "csk_live_not-a-key").chat.completions.create({ model: "support-bot", messages }));
		expect(unauthenticated).toBeInstanceOf(OpenAI.AuthenticationError);
		expect(unauthenticated).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS", type: "authentication_error" });

		const knowledgeOnly = await workspace.createKey(["knowledge:read"]);
		const forbidden = await thrown(openAiClient(platform, knowledgeOnly.key).chat.completions.create({ model: "support-bot", messages }));
		expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
		expect(forbidden).toMatchObject({ status: 403, code: "FORBIDDEN", type: "permission_error" });

		const client = openAiClient(platform, workspace.apiKey);
		const unknown = await thrown(client.chat.completions.create({ model: "gpt-4o", messages }));
		expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
		expect(unknown).toMatchObject({ status: 404, code: "ASSISTANT_NOT_FOUND", type: "not_found_error" });
		expect(unknown.message).toContain("openai/gpt-4o");
		const undeployed = await thrown(client.chat.completions.create({ model: "support-bot@nowhere", messages }));
		expect(undeployed).toMatchObject({ status: 404, code: "DEPLOYMENT_NOT_FOUND" });

		for (const [body, param] of [
			[{ model: "support-bot", messages, n: 2 }, "n"],
			[{ model: "support-bot", messages: [] }, "messages"],
			[{ model: "support-bot", messages: [{ role: "robot", content: "Hi" }] }, "messages[0].role"],
			[{ model: "acme/gpt-4o", messages }, "model"],
			[{ model: "openai/", messages }, "model"],
		] as const) {
			const invalid = await thrown(client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming));
			expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
			expect(invalid).toMatchObject({ status: 400, code: "VALIDATION_ERROR", param, type: "invalid_request_error" });
		}
		const malformed = await fetch(`${platform.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" }, body: "{" });
		expect(malformed.status).toBe(400);
		expect(await malformed.json()).toMatchObject({ error: { code: "INVALID_REQUEST", type: "invalid_request_error", param: null } });
		expect(standIn.requests).toHaveLength(0);
	});

	it("answers 429 RATE_LIMITED past the key's limit, with Retry-After, as the SDK's RateLimitError", async () => {
		const workspace = await workspaceWithAssistant(platform, standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = 2 where id = ?", [workspace.workspaceId]);
		const client = openAiClient(platform, workspace.apiKey);
		await awayFromMinuteBoundary();
		for (let index = 0; index < 2; index++) await client.chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }] });
		const limited = await thrown(client.chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }] }));
		expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
		expect(limited).toMatchObject({ status: 429, code: "RATE_LIMITED", type: "rate_limit_error" });
		const retryAfter = Number(limited.headers?.get("retry-after"));
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect(standIn.requests).toHaveLength(2);
	});

	it("answers a provider failure as the SDK's server error, naming the provider", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		// The runtime's retries (2 by default for ad-hoc models) are used up first.
		standIn.script({ kind: "error", status: 500 }, { kind: "error", status: 500 }, { kind: "error", status: 500 });
		const failed = await thrown(openAiClient(platform, apiKey).chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Hi" }], max_tokens: 5 }));
		expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
		expect(failed).toMatchObject({ status: 502, code: "INTERNAL_ERROR", type: "server_error" });
		expect(failed.message).toContain("openai");
		expect(failed.headers?.get("x-trace-id")).toMatch(TRACE_ID);
		expect(standIn.requests).toHaveLength(3);
	});

	it("answers an unknown /v1 path in OpenAI's shape", async () => {
		const { apiKey } = await platform.createWorkspace();
		const response = await fetch(`${platform.url}/v1/embeddings`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` } });
		expect(response.status).toBe(404);
		expect(await response.json()).toMatchObject({ error: { code: "NOT_FOUND", type: "not_found_error" } });
	});
});

describe("GET /v1/models with the openai SDK", () => {
	it("lists the deployed assistants by slug and slug@environment, then the providers the workspace has credentials for", async () => {
		const workspace = await workspaceWithAssistant(platform, standIn.baseUrl);
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "mistral", apiKey: "mistral-key", baseUrl: standIn.baseUrl });
		// Created, never deployed: nothing to run.
		await createAssistant(platform.operator(), { workspaceId: workspace.workspaceId, slug: "draft-only", name: "Draft" });
		const client = openAiClient(platform, workspace.apiKey);
		const models: OpenAI.Model[] = [];
		for await (const model of client.models.list()) models.push(model);
		expect(models.map((model) => model.id)).toEqual(["support-bot", "support-bot@production", "support-bot@staging", "mistral/", "openai/"]);
		expect(models[0]).toMatchObject({ object: "model", owned_by: "workspace" });
		expect(models[0].created).toBeGreaterThan(1_700_000_000);
		expect(models[3]).toEqual({ id: "mistral/", object: "model", created: 0, owned_by: "mistral" });
		// Every id listed runs (a prefix with a model name after it).
		await client.chat.completions.create({ model: "support-bot@staging", messages: [{ role: "user", content: "Hi" }], ...({ variables: { company: "Acme" } } as object) });
		await client.chat.completions.create({ model: "mistral/mistral-small-latest", messages: [{ role: "user", content: "Hi" }] });
		expect(standIn.requests.map((request) => request.body.model)).toEqual(["model-two", "mistral-small-latest"]);
	});

	it("lists nothing of another workspace, and needs the runtime scope", async () => {
		await workspaceWithAssistant(platform, standIn.baseUrl);
		const stranger = await platform.createWorkspace();
		const page = await openAiClient(platform, stranger.apiKey).models.list();
		expect(page.data).toEqual([]);
		const knowledgeOnly = await stranger.createKey(["knowledge:read"]);
		const refused = await thrown(openAiClient(platform, knowledgeOnly.key).models.list());
		expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
		expect(refused).toMatchObject({ code: "FORBIDDEN" });
	});
});

describe("client-side tools on an ad-hoc model, with the openai SDK", () => {
	const tools: OpenAI.ChatCompletionTool[] = [
		{ type: "function", function: { name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
	];

	it("passes the caller's tools and tool_choice to the provider, returns the model's tool_calls, and sends the results back on the next turn", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const client = openAiClient(platform, apiKey);
		standIn.script({ kind: "completion", toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' }] }, { kind: "completion", content: "It is sunny in Paris." });
		const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
		const first = await client.chat.completions.create({ model: "openai/gpt-4.1-mini", messages, tools, tool_choice: "auto" });
		expect(first.choices[0].finish_reason).toBe("tool_calls");
		expect(first.choices[0].message.tool_calls).toEqual([{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]);
		expect(standIn.requests[0].body).toMatchObject({ tools, tool_choice: "auto" });

		messages.push(first.choices[0].message, { role: "tool", tool_call_id: "call_1", content: '{"sky":"sunny"}' });
		const second = await client.chat.completions.create({ model: "openai/gpt-4.1-mini", messages, tools });
		expect(second.choices[0].message.content).toBe("It is sunny in Paris.");
		expect(standIn.requests[1].body.messages).toEqual([
			{ role: "user", content: "Weather in Paris?" },
			{ role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
			{ role: "tool", tool_call_id: "call_1", content: '{"sky":"sunny"}' },
		]);
	});

	it("streams the model's tool calls as chunks the SDK's stream helper assembles", async () => {
		const { apiKey } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", toolCalls: [{ id: "call_7", name: "get_weather", arguments: '{"city":"Oslo"}' }] });
		const stream = openAiClient(platform, apiKey).chat.completions.stream({
			model: "openai/gpt-4.1-mini",
			messages: [{ role: "user", content: "Weather in Oslo?" }],
			tools,
			tool_choice: { type: "function", function: { name: "get_weather" } },
		});
		const final = await stream.finalChatCompletion();
		expect(final.choices[0].finish_reason).toBe("tool_calls");
		expect(final.choices[0].message.tool_calls).toMatchObject([{ id: "call_7", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }]);
		expect(standIn.requests[0].body).toMatchObject({ tool_choice: { type: "function", function: { name: "get_weather" } } });
	});

	it("refuses the caller's tools on a deployed assistant, whose tools come from its version", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const refused = await thrown(openAiClient(platform, apiKey).chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }], tools }));
		expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
		expect(refused).toMatchObject({ code: "VALIDATION_ERROR", param: "tools" });
		expect(standIn.requests).toHaveLength(0);
	});
});
