import type { ProviderName } from "../db/entities";
import { createOpenAiAdapter } from "./openai/openai-adapter";
import { createOpenAiCompatibleAdapter } from "./openai-compatible/openai-compatible-adapter";
import type { ProviderAdapter, ProviderConnection } from "./types";
import type { UpstreamHttp } from "./upstream-http";

/**
 * The one place that knows which adapter serves which provider name. The Mistral SDK is loaded on
 * first use: importing it takes one to two seconds, which every process start (the operator CLI's
 * included) would otherwise pay whether or not a workspace uses Mistral.
 */
export async function createProviderAdapter(providerName: ProviderName, connection: ProviderConnection, upstream: UpstreamHttp): Promise<ProviderAdapter> {
	switch (providerName) {
		case "openai":
			return createOpenAiAdapter({ providerName: "openai", connection, upstream, maxTokensParameter: "max_completion_tokens" });
		case "mistral":
			return (await import("./mistral/mistral-adapter")).createMistralAdapter(connection, upstream);
		case "openai-compatible":
			return createOpenAiCompatibleAdapter(connection, upstream);
	}
}
