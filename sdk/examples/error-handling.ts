// Errors: one class per HTTP status, a `code` to branch on, and transport failures apart.
import { APIConnectionError, APIError, GenerationStreamError, NotFoundError, PlatformClient, RateLimitError } from "@ai-app-platform/sdk";

const client = new PlatformClient({ maxRetries: 2, timeoutMs: 30_000 });

try {
	await client.knowledge.sources.retrieve("ks_does_not_exist");
} catch (error) {
	if (error instanceof NotFoundError) console.log(`not found: ${error.code} (request ${error.requestId})`);
	else throw error;
}

try {
	await client.runtime.execute({ providerName: "openai", model: "gpt-4o-mini", messages: [] });
} catch (error) {
	if (!(error instanceof APIError)) throw error;
	switch (error.code) {
		case "VALIDATION_ERROR":
			for (const issue of error.fields ?? []) console.log(`invalid ${issue.field}: ${issue.issue}`);
			break;
		case "RATE_LIMITED":
		case "COST_QUOTA_EXCEEDED":
			console.log(`slow down: ${error.message}`);
			break;
		default:
			// The catalog is closed, but a newer server may send a code this SDK does not know.
			console.log(`${error.status} ${error.code}: ${error.message}`);
	}
}

try {
	const stream = await client.runtime.stream({ providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] });
	console.log(await stream.text());
} catch (error) {
	if (error instanceof GenerationStreamError) console.log(`the provider failed mid-stream: ${error.code}, retryable: ${error.retryable}`);
	else if (error instanceof RateLimitError) console.log("rate limited");
	else if (error instanceof APIConnectionError) console.log("could not reach the server (timeouts are a subclass)");
	else throw error;
}
