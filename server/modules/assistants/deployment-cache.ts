import type { EntityManager } from "@mikro-orm/postgresql";
import type { TServedAssistant } from "../../../contract/schemas/runtime";
import type { AssistantConfig } from "../../db/entities";
import { NotifiedCache } from "../../db/notified-cache";
import { type DatabaseNotifications, defineChannel } from "../../db/notifications";
import { AppError } from "../../shared/app-error";

/** Payload: the workspace id. Acknowledged: a publish or rollback is served on the very next call, everywhere. */
export const DEPLOYMENT_CHANNEL = defineChannel("deployment_changed", { acknowledged: true });
const MAX_CACHED_DEPLOYMENTS = 10_000;

export interface ResolvedDeployment {
	assistantId: string;
	versionId: string;
	version: number;
	environment: string;
	config: AssistantConfig;
	/** What answers name as having served them; built once per cached deployment. */
	served: TServedAssistant;
}

type Row = { assistant_id: string; archived_at: Date | null; environment_id: string | null; version_id: string | null; version: number | null; config: AssistantConfig | null };

/** slug -> assistant -> deployment in `environment` -> version, in one query. */
export async function loadDeployment(em: EntityManager, input: { workspaceId: string; slug: string; environment: string }): Promise<ResolvedDeployment> {
	const rows: Row[] = await em.getConnection().execute(
		`select a.id as assistant_id, a.archived_at, e.id as environment_id, v.id as version_id, v.version, v.config
		 from assistants a
		 left join environments e on e.workspace_id = a.workspace_id and e.slug = ?
		 left join deployments d on d.assistant_id = a.id and d.environment_id = e.id
		 left join assistant_versions v on v.id = d.version_id
		 where a.workspace_id = ? and a.slug = ?`,
		[input.environment, input.workspaceId, input.slug],
	);
	const row = rows[0];
	if (!row) throw new AppError("ASSISTANT_NOT_FOUND", `No assistant '${input.slug}' in this workspace`);
	if (!row.environment_id) throw new AppError("DEPLOYMENT_NOT_FOUND", `No environment '${input.environment}' in this workspace`);
	if (row.archived_at) throw new AppError("DEPLOYMENT_NOT_FOUND", `Assistant '${input.slug}' is archived`);
	if (!row.version_id || !row.config || row.version === null) {
		throw new AppError("DEPLOYMENT_NOT_FOUND", `Assistant '${input.slug}' is not deployed to '${input.environment}'`);
	}
	return {
		assistantId: row.assistant_id,
		versionId: row.version_id,
		version: row.version,
		environment: input.environment,
		config: row.config,
		served: { slug: input.slug, version: row.version, environment: input.environment },
	};
}

/**
 * Deployment resolution cached per process, dropped per workspace on `deployment_changed`. Publish
 * and rollback notify after commit and wait until every process has dropped its entries, so the
 * very next call on any instance serves the new version.
 */
export class DeploymentResolver {
	private readonly cache: NotifiedCache<ResolvedDeployment>;

	constructor(notifications: DatabaseNotifications) {
		this.cache = new NotifiedCache(notifications, DEPLOYMENT_CHANNEL, { tagOf: (key) => key.slice(0, key.indexOf("\u0000")), maxEntries: MAX_CACHED_DEPLOYMENTS });
	}

	/** `em` is only called on a miss: a cached answer costs no EntityManager. */
	resolve(em: () => EntityManager, input: { workspaceId: string; slug: string; environment: string }): Promise<ResolvedDeployment> {
		return this.cache.get(`${input.workspaceId}\u0000${input.slug}\u0000${input.environment}`, () => loadDeployment(em(), input));
	}
}
