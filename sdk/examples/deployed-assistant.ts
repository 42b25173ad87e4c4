// A deployed assistant: only the input travels; provider, model and prompt come from the version
// published to the environment (default `production`), so they change without a client change.
import { PlatformClient } from "@ai-app-platform/sdk";

const client = new PlatformClient();

const answer = await client.assistants.run("support-bot", {
	input: "Where is my order?",
	variables: { customerName: "Ada" },
});
console.log(answer.message.content);

// Streamed, naming the environment (a staging deployment is called the same way).
const stream = await client.assistants.stream("support-bot", { input: "And my refund?", variables: { customerName: "Ada" }, environment: "production" });
console.log(await stream.text());
