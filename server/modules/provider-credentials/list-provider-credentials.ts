import { ZListProviderCredentialsInput } from "../../../contract/inputs/provider-credentials";
import { ProviderCredentialSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import type { ProviderCredentialView } from "./set-provider-credential";

/** Provider, base URL and the key's last four characters: never the key. */
export async function listProviderCredentials(context: UseCaseContext, input: { workspaceId: string }): Promise<ProviderCredentialView[]> {
	const workspaceId = await authorizeWorkspace(context, "administration:read", parseUseCaseInput(ZListProviderCredentialsInput, input).workspaceId);
	const credentials = await context.em.find(ProviderCredentialSchema, { workspace: workspaceId }, { orderBy: { provider: "asc" } });
	return credentials.map((credential) => ({
		id: credential.id,
		workspaceId,
		provider: credential.provider,
		apiKeyHint: credential.apiKeyHint,
		baseUrl: credential.baseUrl,
		updatedAt: credential.updatedAt.toISOString(),
	}));
}
