import type { EntityManager } from "@mikro-orm/postgresql";
import type { ProviderName } from "../../db/entities";
import { NotifiedCache } from "../../db/notified-cache";
import type { DatabaseNotifications } from "../../db/notifications";
import { createProviderAdapter } from "../../providers/create-provider-adapter";
import type { ProviderAdapter } from "../../providers/types";
import type { UpstreamHttp } from "../../providers/upstream-http";
import { AppError } from "../../shared/app-error";
import type { SecretBox } from "../../shared/crypto";
import { PROVIDER_CREDENTIAL_CHANNEL } from "../provider-credentials/set-provider-credential";

const MAX_CACHED_ADAPTERS = 1000;

/**
 * The workspace's adapter for a provider, over its stored credential, cached per process (the key
 * is decrypted once) and dropped per workspace on `provider_credential_changed`, which a trigger
 * sends at commit and the credential use cases send again, acknowledged: the very next generation
 * anywhere uses the new key.
 */
export class ProviderAdapters {
	private readonly cache: NotifiedCache<ProviderAdapter>;

	constructor(
		private readonly secrets: SecretBox,
		notifications: DatabaseNotifications,
		/** Every provider call's connection pool. */
		private readonly upstream: UpstreamHttp,
	) {
		this.cache = new NotifiedCache(notifications, PROVIDER_CREDENTIAL_CHANNEL, { tagOf: (key) => key.slice(0, key.indexOf("\u0000")), maxEntries: MAX_CACHED_ADAPTERS });
	}

	/** `em` is only called on a miss: a cached adapter costs no EntityManager. */
	forWorkspace(em: () => EntityManager, workspaceId: string, providerName: ProviderName): Promise<ProviderAdapter> {
		return this.cache.get(`${workspaceId}\u0000${providerName}`, async () => {
			const rows: { encrypted_api_key: string; base_url: string | null }[] = await em()
				.getConnection()
				.execute("select encrypted_api_key, base_url from provider_credentials where workspace_id = ? and provider = ?", [workspaceId, providerName]);
			const row = rows[0];
			if (!row) {
				throw new AppError("INVALID_REQUEST", `No credential for provider '${providerName}' is configured in this workspace; add one in the provider settings`);
			}
			return createProviderAdapter(providerName, { apiKey: this.secrets.decrypt(row.encrypted_api_key), baseUrl: row.base_url }, this.upstream);
		});
	}
}
