import { ZDeleteProviderCredentialInput } from "../../../contract/inputs/provider-credentials";
import { ProviderCredentialSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { PROVIDER_CREDENTIAL_CHANNEL } from "./set-provider-credential";

/** Returns once every instance has dropped its cached client: the next generation with that provider is refused. */
export async function deleteProviderCredential(context: UseCaseContext, input: { workspaceId: string; provider: string }): Promise<{ provider: string; deleted: true }> {
	const { workspaceId: named, provider } = parseUseCaseInput(ZDeleteProviderCredentialInput, input);
	const workspaceId = await authorizeWorkspace(context, "administration:write", named);
	const credential = await context.em.findOne(ProviderCredentialSchema, { workspace: workspaceId, provider });
	if (!credential) throw AppError.notFound(`Credential for provider '${provider}'`);
	context.em.remove(credential);
	await context.em.flush();
	await context.services.notifications.publish(PROVIDER_CREDENTIAL_CHANNEL, workspaceId);
	return { provider, deleted: true };
}
