// A deployed assistant: only the input travels; provider, model and prompt come from the version
// published to the environment (default `production`), so they change without a client change.
import { PlatformClient } from "@ai-app-platform/sdk";

const client = new PlatformClient();

const answer = await client.assistants.run("support-bot", {
	input: "Where is my order?",
	variables: { customerName: "Ada" },
});
console.log(answer.message.content);
// Which published version answered, and the trace recording it (the MCP tool get_trace reads it).
console.log(`version ${answer.assistant.version} in ${answer.assistant.environment}, trace ${answer.traceId}`);

// Streamed, naming the environment (a staging deployment is called the same way); `done` names the version and the trace too.
const stream = await client.assistants.stream("support-bot", { input: "And my refund?", variables: { customerName: "Ada" }, environment: "production" });
const result = await stream.finalResult();
console.log(`${result.text} (version ${result.assistant?.version}, trace ${result.traceId})`);
