import type { ProviderName } from "../db/entities";
import { createMistralAdapter } from "./mistral/mistral-adapter";
import { createOpenAiAdapter } from "./openai/openai-adapter";
import { createOpenAiCompatibleAdapter } from "./openai-compatible/openai-compatible-adapter";
import type { ProviderAdapter, ProviderConnection } from "./types";

/** The one place that knows which adapter serves which provider name. */
export function createProviderAdapter(providerName: ProviderName, connection: ProviderConnection): ProviderAdapter {
	switch (providerName) {
		case "openai":
			return createOpenAiAdapter({ providerName: "openai", connection, maxTokensParameter: "max_completion_tokens" });
		case "mistral":
			return createMistralAdapter(connection);
		case "openai-compatible":
			return createOpenAiCompatibleAdapter(connection);
	}
}
