import type { EntityManager } from "@mikro-orm/postgresql";
import { NotifiedCache } from "../../db/notified-cache";
import { type DatabaseNotifications, defineChannel } from "../../db/notifications";
import { hashApiKey } from "./api-key-format";
import { type ApiKeyPrincipal, authenticateApiKey } from "./authenticate-api-key";

/** Payload: the revoked key's id. Acknowledged: spec, revocation takes effect immediately. */
export const API_KEY_REVOKED_CHANNEL = defineChannel("api_key_revoked", { acknowledged: true });
const MAX_CACHED_KEYS = 10_000;

/**
 * Valid keys cached per process, by hash, dropped on `api_key_revoked` (revokeApiKey returns only
 * once every process has dropped the key). Unknown keys are not cached: a failed load is forgotten.
 */
export class ApiKeyCache {
	private readonly cache: NotifiedCache<ApiKeyPrincipal>;

	constructor(notifications: DatabaseNotifications) {
		this.cache = new NotifiedCache(notifications, API_KEY_REVOKED_CHANNEL, { tagOf: (_hash, principal) => principal.apiKeyId, maxEntries: MAX_CACHED_KEYS });
	}

	/** `em` is only called on a miss: a cached key costs no EntityManager. */
	authenticate(em: () => EntityManager, token: string): Promise<ApiKeyPrincipal> {
		return this.cache.get(hashApiKey(token), () => authenticateApiKey(em(), token));
	}
}
