import type { z } from "zod";
import { ZListSecretsInput } from "../../../contract/inputs/workspace-secrets";
import { WorkspaceSecretSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import type { SecretView } from "./set-secret";

/** Names and when each was set: never a value. */
export async function listSecrets(context: UseCaseContext, input: z.input<typeof ZListSecretsInput>): Promise<SecretView[]> {
	const workspaceId = await authorizeWorkspace(context, "administration:read", parseUseCaseInput(ZListSecretsInput, input).workspaceId);
	const secrets = await context.em.find(WorkspaceSecretSchema, { workspace: workspaceId }, { orderBy: { name: "asc" } });
	return secrets.map((secret) => ({ name: secret.name, workspaceId, updatedAt: secret.updatedAt.toISOString() }));
}
