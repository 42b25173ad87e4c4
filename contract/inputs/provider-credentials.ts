import { PROVIDER_NAMES } from "../schemas/runtime";
import { z } from "../zod";
import { workspaceId } from "./fields";

/** The inputs of server/modules/provider-credentials: the MCP tools, the operator CLI and the dashboard's routes all take these. */
const provider = () => z.enum(PROVIDER_NAMES).describe("Model provider");

export const ZListProviderCredentialsInput = z.object({ workspaceId }).strict();

export const ZSetProviderCredentialInput = z
	.object({
		workspaceId,
		provider: provider(),
		apiKey: z.string().min(1, "Required").max(1000).describe("The provider's API key"),
		// Checked by the use case ("Must be an http(s) URL", and the egress policy): a `format: uri` is refused by some clients' schema dialects.
		baseUrl: z.string().max(2000).optional().describe("API base URL, an http(s) URL such as https://api.example.com/v1; required for openai-compatible"),
	})
	.strict();

export const ZDeleteProviderCredentialInput = z.object({ workspaceId, provider: provider() }).strict();

export const ZTestProviderCredentialInput = z.object({ workspaceId, provider: provider() }).strict();

export type SetProviderCredentialInput = z.input<typeof ZSetProviderCredentialInput>;
