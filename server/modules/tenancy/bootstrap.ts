import { SCOPES } from "../../../contract/common";
import { createApiKey } from "../api-keys/create-api-key";
import { type UseCaseContext, withEntityManager } from "../platform-services";
import { createOrganization } from "./create-organization";
import { createUser } from "./create-user";
import { createWorkspace } from "./create-workspace";

export interface BootstrapResult {
	organizationId: string;
	workspaceId: string;
	userId: string;
	apiKey: string;
}

/** First run: an organization, its owner, a workspace and an API key with every scope, atomically. */
export async function bootstrapInstallation(
	context: UseCaseContext,
	input: { organization: string; workspace: string; email: string; password: string },
): Promise<BootstrapResult> {
	return context.em.transactional(async (tx) => {
		const inTransaction = withEntityManager(context, tx);
		const organization = await createOrganization(inTransaction, { name: input.organization });
		const user = await createUser(inTransaction, { email: input.email, password: input.password, organizationId: organization.id, role: "owner" });
		const workspace = await createWorkspace(inTransaction, { organizationId: organization.id, name: input.workspace });
		const apiKey = await createApiKey(inTransaction, { workspaceId: workspace.id, name: "Bootstrap key", scopes: [...SCOPES] }, { createdByUserId: user.userId });
		return { organizationId: organization.id, workspaceId: workspace.id, userId: user.userId, apiKey: apiKey.key };
	});
}
