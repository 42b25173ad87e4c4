import { queryOptions } from "@tanstack/react-query";
import { managementApi, unwrap } from "../../api/management-client";

export const providerCredentialsQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "provider-credentials"],
		queryFn: async () => unwrap(await managementApi.credentials.listProviderCredentials({ params: { workspaceId } })).data,
	});

/** The providers a workspace can hold a key for, as people name them, and what their base URL means. */
export const PROVIDERS = [
	{ id: "openai", name: "OpenAI", baseUrl: "Optional: a proxy or gateway in front of OpenAI. Empty: https://api.openai.com/v1." },
	{ id: "mistral", name: "Mistral", baseUrl: "Optional: a proxy or regional endpoint. Empty: https://api.mistral.ai." },
	{ id: "openai-compatible", name: "OpenAI-compatible", baseUrl: "Required: the server's API address, e.g. http://ollama.internal:11434/v1 (Ollama, vLLM, LM Studio, gateways)." },
] as const;

export type ProviderId = (typeof PROVIDERS)[number]["id"];
