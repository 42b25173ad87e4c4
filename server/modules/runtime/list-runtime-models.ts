import { ProviderCredentialSchema, type ProviderName } from "../../db/entities";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";

export interface RuntimeModel {
	/** What a generation names as its model: `slug`, `slug@environment` or `provider/`. */
	name: string;
	kind: "assistant" | "provider";
	/** The assistant's creation; null for a provider prefix. */
	createdAt: Date | null;
	/** The provider, for a prefix. */
	provider?: ProviderName;
}

/**
 * What an API key can run (GET /v1/models): every deployed assistant that is not archived, by slug
 * when production serves it and as `slug@environment` for each environment that does, then the
 * providers the workspace holds a credential for, as `provider/` prefixes. Listed with the scope
 * that runs them: whoever may run a model may learn its name.
 */
export async function listRuntimeModels(context: UseCaseContext, input: { workspaceId?: string } = {}): Promise<RuntimeModel[]> {
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	const deployed: { slug: string; environment: string; created_at: Date }[] = await context.em.getConnection().execute(
		`select a.slug, e.slug as environment, a.created_at
		 from deployments d join assistants a on a.id = d.assistant_id join environments e on e.id = d.environment_id
		 where d.workspace_id = ? and a.archived_at is null
		 order by a.slug, e.slug`,
		[workspaceId],
	);
	const models: RuntimeModel[] = [];
	for (const row of deployed) {
		const createdAt = new Date(row.created_at);
		if (row.environment === DEFAULT_ENVIRONMENT_SLUG) models.push({ name: row.slug, kind: "assistant", createdAt });
		models.push({ name: `${row.slug}@${row.environment}`, kind: "assistant", createdAt });
	}
	const credentials = await context.em.find(ProviderCredentialSchema, { workspace: workspaceId }, { fields: ["provider"], orderBy: { provider: "asc" } });
	for (const { provider } of credentials) models.push({ name: `${provider}/`, kind: "provider", createdAt: null, provider });
	return models;
}
