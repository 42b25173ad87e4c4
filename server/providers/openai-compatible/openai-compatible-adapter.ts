import { AppError } from "../../shared/app-error";
import { createOpenAiAdapter } from "../openai/openai-adapter";
import type { ProviderAdapter, ProviderConnection } from "../types";
import type { UpstreamHttp } from "../upstream-http";

/**
 * Any server speaking OpenAI's chat API (Ollama, vLLM, LM Studio, Together, Groq, gateways) at the
 * credential's base URL, through the same SDK; it differs from `openai` in needing that URL and in
 * the max-tokens parameter name most such servers understand.
 */
export function createOpenAiCompatibleAdapter(connection: ProviderConnection, upstream: UpstreamHttp): ProviderAdapter {
	if (!connection.baseUrl) throw new AppError("INVALID_REQUEST", "The openai-compatible credential has no base URL; set one in the provider settings");
	return createOpenAiAdapter({ providerName: "openai-compatible", connection, upstream, maxTokensParameter: "max_tokens" });
}
