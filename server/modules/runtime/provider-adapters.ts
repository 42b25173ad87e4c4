import type { EntityManager } from "@mikro-orm/postgresql";
import type { ProviderName } from "../../db/entities";
import type { DatabaseNotifications } from "../../db/notifications";
import { PROVIDER_CREDENTIAL_CHANNEL } from "../provider-credentials/set-provider-credential";
import { createProviderAdapter } from "../../providers/create-provider-adapter";
import type { ProviderAdapter } from "../../providers/types";
import { AppError } from "../../shared/app-error";
import type { SecretBox } from "../../shared/crypto";

const MAX_CACHED_ADAPTERS = 1000;

/**
 * The workspace's adapter for a provider, over its stored credential. SDK clients are kept per
 * credential (each holds a pool of warm connections, and the key is decrypted once); a trigger
 * NOTIFYs every process when a credential is written or deleted, which drops the cached client.
 * Without a live listener, the row is read on every call and the client kept only while its
 * sealed key and base URL are unchanged.
 */
export class ProviderAdapters {
	private readonly adapters = new Map<string, { fingerprint: string; adapter: ProviderAdapter }>();
	private generation = 0;

	constructor(
		private readonly secrets: SecretBox,
		private readonly notifications?: DatabaseNotifications,
	) {
		notifications?.on(PROVIDER_CREDENTIAL_CHANNEL, (workspaceId) => this.forgetWorkspace(workspaceId));
		notifications?.onReset(() => {
			this.generation += 1;
			this.adapters.clear();
		});
	}

	/** `em` is only called on a miss: a cached adapter costs no EntityManager. */
	async forWorkspace(em: () => EntityManager, workspaceId: string, providerName: ProviderName): Promise<ProviderAdapter> {
		const cacheKey = `${workspaceId}\u0000${providerName}`;
		const cached = this.adapters.get(cacheKey);
		if (cached && this.notifications?.listening) return cached.adapter;
		const generation = this.generation;
		const rows: { encrypted_api_key: string; base_url: string | null }[] = await em()
			.getConnection()
			.execute("select encrypted_api_key, base_url from provider_credentials where workspace_id = ? and provider = ?", [workspaceId, providerName]);
		const row = rows[0];
		if (!row) {
			throw new AppError("INVALID_REQUEST", `No credential for provider '${providerName}' is configured in this workspace; add one in the provider settings`);
		}
		const fingerprint = `${row.encrypted_api_key}|${row.base_url ?? ""}`;
		if (cached?.fingerprint === fingerprint) return cached.adapter;
		const adapter = createProviderAdapter(providerName, { apiKey: this.secrets.decrypt(row.encrypted_api_key), baseUrl: row.base_url });
		// A change notified while we were reading may be newer than our row: use it, don't keep it.
		if (generation === this.generation) {
			if (this.adapters.size >= MAX_CACHED_ADAPTERS) this.adapters.delete(this.adapters.keys().next().value as string);
			this.adapters.set(cacheKey, { fingerprint, adapter });
		}
		return adapter;
	}

	private forgetWorkspace(workspaceId: string): void {
		this.generation += 1;
		const prefix = `${workspaceId}\u0000`;
		for (const key of this.adapters.keys()) if (key.startsWith(prefix)) this.adapters.delete(key);
	}
}
