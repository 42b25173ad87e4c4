// An ad-hoc generation: provider, model and messages in the request.
// Run with PLATFORM_API_KEY (and PLATFORM_BASE_URL unless the server is at http://localhost:3000).
import { PlatformClient } from "@ai-app-platform/sdk";

const client = new PlatformClient();

const result = await client.runtime.execute({
	providerName: "openai",
	model: "gpt-4o-mini",
	messages: [
		{ role: "system", content: "You answer in one sentence." },
		{ role: "user", content: "What is a knowledge base?" },
	],
	config: { temperature: 0.2, maxOutputTokens: 200 },
});
console.log(result.message.content);
console.log(`finish: ${result.finishReason}, tokens: ${result.usage.totalTokens}`);

// The same call with the HTTP response and its request id (quote it when reporting a problem).
const { data, requestId } = await client.runtime
	.execute({ providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello." }] })
	.withResponse();
console.log(`${data.message.content} (request ${requestId})`);
