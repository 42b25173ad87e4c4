import type { EntityManager } from "@mikro-orm/postgresql";
import { SCOPES } from "../../../contract/common";
import { createApiKey } from "../api-keys/create-api-key";
import { createOrganization, createUser } from "./create-user";
import { createWorkspace } from "./create-workspace";

export interface BootstrapResult {
	organizationId: string;
	workspaceId: string;
	userId: string;
	apiKey: string;
}

/** First run: an organization, its owner, a workspace and an API key with every scope, atomically. */
export async function bootstrapInstallation(
	em: EntityManager,
	input: { organization: string; workspace: string; email: string; password: string },
): Promise<BootstrapResult> {
	return em.transactional(async (tx) => {
		const organization = await createOrganization(tx, { name: input.organization });
		const user = await createUser(tx, { email: input.email, password: input.password, organizationId: organization.id, role: "owner" });
		const workspace = await createWorkspace(tx, { organizationId: organization.id, name: input.workspace });
		const apiKey = await createApiKey(tx, { workspaceId: workspace.id, name: "Bootstrap key", scopes: SCOPES, createdByUserId: user.userId });
		return { organizationId: organization.id, workspaceId: workspace.id, userId: user.userId, apiKey: apiKey.key };
	});
}
