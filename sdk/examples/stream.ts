// A streamed generation: typed events as the model writes.
import { PlatformClient } from "@ai-app-platform/sdk";

const client = new PlatformClient();

const stream = await client.runtime.stream({
	providerName: "openai",
	model: "gpt-4o-mini",
	messages: [{ role: "user", content: "Write a haiku about retries." }],
});

let text = "";
for await (const event of stream) {
	if (event.event === "delta") text += event.data.content; // render each piece as it arrives
	if (event.event === "usage") console.log(`tokens: ${event.data.totalTokens}`);
	if (event.event === "done") console.log(`finish: ${event.data.finishReason}`);
	if (event.event === "error") console.error(`provider failed mid-stream: ${event.data.code} ${event.data.message}`);
}
console.log(text);

// Or just the text (a terminal `error` event is thrown as GenerationStreamError); abort() cancels.
const again = await client.runtime.stream({ providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Again." }] });
console.log(await again.text());
