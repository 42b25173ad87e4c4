import type { z } from "zod";
import { ZListAssistantProvidersInput } from "../../../contract/inputs/assistants";
import { PROVIDERS, type ProviderName, ProviderCredentialSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

/**
 * Every provider an assistant can name, and whether the workspace holds a credential for it (an
 * assistant on a provider without one is refused when it runs). Names only: the key's hint and the
 * base URL are for administrators (list_provider_credentials).
 */
export async function listAssistantProviders(
	context: UseCaseContext,
	rawInput: z.input<typeof ZListAssistantProvidersInput>,
): Promise<{ provider: ProviderName; configured: boolean }[]> {
	const input = parseInput(ZListAssistantProvidersInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const credentials = await context.em.find(ProviderCredentialSchema, { workspace: workspaceId }, { fields: ["provider"] });
	const configured = new Set<string>(credentials.map((credential) => credential.provider));
	return PROVIDERS.map((provider) => ({ provider, configured: configured.has(provider) }));
}
