import type { EntityManager } from "@mikro-orm/postgresql";
import type { AssistantConfig } from "../../db/entities";
import type { DatabaseNotifications } from "../../db/notifications";
import { AppError } from "../../shared/app-error";

/** NOTIFY channel for deployment changes; the payload is the workspace id. */
export const DEPLOYMENT_CHANNEL = "deployment_changed";

export interface ResolvedDeployment {
	assistantId: string;
	versionId: string;
	version: number;
	environment: string;
	config: AssistantConfig;
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
	return { assistantId: row.assistant_id, versionId: row.version_id, version: row.version, environment: input.environment, config: row.config };
}

/**
 * Deployment resolution cached per process. Invalidation is by LISTEN/NOTIFY: publish and rollback
 * notify at commit from whichever process ran them, and this cache drops that workspace's entries.
 * Without a live listener it reads through, so a deployment is never served stale.
 */
export class DeploymentResolver {
	private readonly entries = new Map<string, ResolvedDeployment>();
	/** Bumped on every invalidation: a load that raced one must not be stored. */
	private generation = 0;

	constructor(private readonly notifications?: DatabaseNotifications) {
		notifications?.on(DEPLOYMENT_CHANNEL, (workspaceId) => this.invalidateWorkspace(workspaceId));
		notifications?.onReset(() => this.clear());
	}

	/** `em` is only called on a miss: a cached answer costs no EntityManager. */
	async resolve(em: () => EntityManager, input: { workspaceId: string; slug: string; environment: string }): Promise<ResolvedDeployment> {
		if (!this.notifications?.listening) return loadDeployment(em(), input);
		const key = `${input.workspaceId}\u0000${input.slug}\u0000${input.environment}`;
		const cached = this.entries.get(key);
		if (cached) return cached;
		const generation = this.generation;
		const loaded = await loadDeployment(em(), input);
		if (generation === this.generation && this.notifications.listening) this.entries.set(key, loaded);
		return loaded;
	}

	private invalidateWorkspace(workspaceId: string): void {
		this.generation += 1;
		const prefix = `${workspaceId}\u0000`;
		for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
	}

	private clear(): void {
		this.generation += 1;
		this.entries.clear();
	}
}
