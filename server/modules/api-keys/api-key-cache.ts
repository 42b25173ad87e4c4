import type { EntityManager } from "@mikro-orm/postgresql";
import type { DatabaseNotifications } from "../../db/notifications";
import { hashApiKey } from "./api-key-format";
import { type ApiKeyPrincipal, authenticateApiKey } from "./authenticate-api-key";

export const API_KEY_REVOKED_CHANNEL = "api_key_revoked";
const MAX_CACHED_KEYS = 10_000;

/**
 * Valid keys cached per process, by hash. revokeApiKey NOTIFYs `api_key_revoked` with the key id
 * at commit, from any process, and the entry is dropped before the next request (spec: revocation
 * takes effect immediately). Unknown keys are not cached; without a live listener, reads go through.
 */
export class ApiKeyCache {
	private readonly byHash = new Map<string, ApiKeyPrincipal>();
	private generation = 0;

	constructor(private readonly notifications?: DatabaseNotifications) {
		notifications?.on(API_KEY_REVOKED_CHANNEL, (apiKeyId) => this.forget(apiKeyId));
		notifications?.onReset(() => this.clear());
	}

	/** `em` is only called on a miss: a cached key costs no EntityManager. */
	async authenticate(em: () => EntityManager, token: string): Promise<ApiKeyPrincipal> {
		if (!this.notifications?.listening) return authenticateApiKey(em(), token);
		const hash = hashApiKey(token);
		const cached = this.byHash.get(hash);
		if (cached) return cached;
		const generation = this.generation;
		const principal = await authenticateApiKey(em(), token);
		if (generation === this.generation && this.notifications.listening) {
			if (this.byHash.size >= MAX_CACHED_KEYS) this.byHash.delete(this.byHash.keys().next().value as string);
			this.byHash.set(hash, principal);
		}
		return principal;
	}

	private forget(apiKeyId: string): void {
		this.generation += 1;
		for (const [hash, principal] of this.byHash) if (principal.apiKeyId === apiKeyId) this.byHash.delete(hash);
	}

	private clear(): void {
		this.generation += 1;
		this.byHash.clear();
	}
}
