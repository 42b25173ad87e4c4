import type { EntityManager } from "@mikro-orm/postgresql";
import { NotifiedCache } from "../../db/notified-cache";
import { type DatabaseNotifications, defineChannel } from "../../db/notifications";
import type { Logger } from "../../shared/logger";
import { hashApiKey } from "./api-key-format";
import { type ApiKeyPrincipal, authenticateApiKey } from "./authenticate-api-key";

/** Payload: the revoked key's id. Acknowledged: spec, revocation takes effect immediately. */
export const API_KEY_REVOKED_CHANNEL = defineChannel("api_key_revoked", { acknowledged: true });
const MAX_CACHED_KEYS = 10_000;
/** A key's last use is written at most this often (per process, and per installation by the statement's condition). */
const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * Valid keys cached per process, by hash, dropped on `api_key_revoked` (revokeApiKey returns only
 * once every process has dropped the key). Unknown keys are not cached: a failed load is forgotten.
 * Each key's last use is recorded off the request's path, at most once a minute: what the
 * dashboard's "last used" shows, never a write per request.
 */
export class ApiKeyCache {
	private readonly cache: NotifiedCache<ApiKeyPrincipal>;
	/** When this process last recorded each key's use (ms since epoch); cleared past MAX_CACHED_KEYS entries. */
	private readonly lastRecorded = new Map<string, number>();

	constructor(
		notifications: DatabaseNotifications,
		private readonly logger?: Logger,
	) {
		this.cache = new NotifiedCache(notifications, API_KEY_REVOKED_CHANNEL, { tagOf: (_hash, principal) => principal.apiKeyId, maxEntries: MAX_CACHED_KEYS });
	}

	/** `em` is only called on a miss, or once a minute to record the key's use: a cached key costs no EntityManager. */
	authenticate(em: () => EntityManager, token: string): Promise<ApiKeyPrincipal> {
		return this.cache.get(hashApiKey(token), () => authenticateApiKey(em(), token)).then((principal) => {
			this.recordUse(em, principal.apiKeyId);
			return principal;
		});
	}

	private recordUse(em: () => EntityManager, apiKeyId: string): void {
		const now = Date.now();
		const last = this.lastRecorded.get(apiKeyId);
		if (last !== undefined && now - last < LAST_USE_RESOLUTION_MS) return;
		if (this.lastRecorded.size >= MAX_CACHED_KEYS) this.lastRecorded.clear();
		this.lastRecorded.set(apiKeyId, now);
		em()
			.getConnection()
			.execute("update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - make_interval(secs => ?))", [
				apiKeyId,
				LAST_USE_RESOLUTION_MS / 1000,
			])
			.catch((error: unknown) => this.logger?.warn("an API key's last use was not recorded", { apiKeyId, error }));
	}
}
