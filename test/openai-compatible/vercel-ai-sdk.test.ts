/**
 * The Vercel AI SDK's OpenAI-compatible provider (`@ai-sdk/openai-compatible`) against the real
 * server: generateText and streamText call a deployed assistant by name, as an application built on
 * that SDK would, with only a base URL and an API key.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { useRuntimeTestbed } from "../runtime/runtime-fixtures";
import { workspaceWithAssistant } from "./openai-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

describe("the Vercel AI SDK's OpenAI-compatible provider", () => {
	it("generates and streams text from a deployed assistant, with usage", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const platformProvider = createOpenAICompatible({ name: "platform", baseURL: `${platform.url}/v1`, apiKey, includeUsage: true });
		standIn.script({ kind: "completion", content: ["Your order ", "left yesterday."], usage: { prompt_tokens: 20, completion_tokens: 2 } });
		standIn.script({ kind: "completion", content: ["Your order ", "left yesterday."], usage: { prompt_tokens: 20, completion_tokens: 2 } });

		const generated = await generateText({ model: platformProvider("support-bot"), prompt: "Where is my order?", maxRetries: 0 });
		expect(generated.text).toBe("Your order left yesterday.");
		expect(generated.finishReason).toBe("stop");
		expect(generated.usage).toMatchObject({ inputTokens: 20, outputTokens: 2, totalTokens: 22 });

		const streamed = streamText({ model: platformProvider("support-bot"), prompt: "Where is my order?", maxRetries: 0 });
		const deltas: string[] = [];
		for await (const delta of streamed.textStream) deltas.push(delta);
		expect(deltas).toEqual(["Your order ", "left yesterday."]);
		expect(await streamed.text).toBe(generated.text);
		expect(await streamed.usage).toMatchObject({ inputTokens: 20, outputTokens: 2, totalTokens: 22 });

		expect(standIn.requests.map((request) => request.body.model)).toEqual(["model-one", "model-one"]);
		expect(standIn.requests[1].body.messages).toEqual([
			{ role: "system", content: "Be brief." },
			{ role: "user", content: "Where is my order?" },
		]);
	});

	it("passes a deployed assistant's variables as the provider's extra body, to a non-default environment", async () => {
		const { apiKey } = await workspaceWithAssistant(platform, standIn.baseUrl);
		const platformProvider = createOpenAICompatible({ name: "platform", baseURL: `${platform.url}/v1`, apiKey });
		const generated = await generateText({
			model: platformProvider("support-bot@staging"),
			prompt: "Hi",
			maxRetries: 0,
			providerOptions: { platform: { variables: { company: "Acme" } } },
		});
		expect(generated.text).toBe("Hello from the stand-in");
		expect(standIn.requests[0].body.messages).toEqual([
			{ role: "system", content: "You answer customers of Acme (tier 1)." },
			{ role: "user", content: "Hi" },
		]);
	});
});
