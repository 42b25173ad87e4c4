/**
 * A deployed assistant's own tools run behind the OpenAI-compatible surface as behind
 * /runtime/assistants/{slug}: the server calls the tool and answers with the model's final text;
 * the OpenAI client sees an ordinary answer, never a tool call it would try to run itself.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { listenOnLoopback, type LoopbackServer } from "../helpers/loopback-server";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { useRuntimeTestbed, workspaceWithCredential } from "../runtime/runtime-fixtures";
import { openAiClient } from "./openai-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;
let weatherApi: LoopbackServer;
const weatherRequests: string[] = [];

useRuntimeTestbed((started) => ({ platform, standIn } = started));
beforeAll(async () => {
	weatherApi = await listenOnLoopback(
		createServer((request, response) => {
			weatherRequests.push(request.url ?? "");
			response.writeHead(200, { "content-type": "application/json" });
			response.end('{"sky":"sunny"}');
		}),
	);
});
afterAll(() => weatherApi?.close());

describe("a deployed assistant's tools behind /v1/chat/completions", () => {
	it("runs the version's http tool on the server, answered and streamed as plain text", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const { workspaceId } = workspace;
		await createAssistant(platform.operator(), { workspaceId, slug: "weather", name: "Weather" });
		await updateAssistantDraft(platform.operator(), {
			workspaceId,
			slug: "weather",
			patch: {
				provider: "openai",
				model: "gpt-4o-mini",
				systemPrompt: "You use tools.",
				generation: { maxRetries: 0 },
				tools: [{ type: "http", name: "get_weather", description: "The weather in a city", method: "GET", url: `${weatherApi.origin}/weather/{city}`, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }],
			},
		});
		await createAssistantVersion(platform.operator(), { workspaceId, slug: "weather" });
		await publishAssistantVersion(platform.operator(), { workspaceId, slug: "weather", version: 1 });
		// The model calls the tool until it has a result, then answers with it.
		standIn.responder = (request) => {
			const results = (request.body.messages as { role: string; content: string }[]).filter((message) => message.role === "tool");
			if (results.length === 0) return { kind: "completion", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] };
			return { kind: "completion", content: ["The tool says ", results[0].content] };
		};
		const client = openAiClient(platform, workspace.apiKey);
		const request = { model: "weather", messages: [{ role: "user" as const, content: "Weather in Paris?" }] };

		const completion = await client.chat.completions.create(request);
		expect(completion.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: 'The tool says {"sky":"sunny"}' } });
		expect(completion.choices[0].message.tool_calls).toBeUndefined();

		const stream = client.chat.completions.stream({ ...request, stream: true });
		const chunks = [];
		for await (const chunk of stream) chunks.push(chunk);
		expect(await stream.finalContent()).toBe('The tool says {"sky":"sunny"}');
		expect(chunks.some((chunk) => chunk.choices[0]?.delta.tool_calls !== undefined)).toBe(false);
		expect(weatherRequests).toEqual(["/weather/Paris", "/weather/Paris"]);
	});
});
