import { importJWK } from "jose";
import { NotifiedCache } from "../db/notified-cache";
import type { PlatformServices } from "../modules/platform-services";
import { ACCESS_TOKEN_ALGORITHM, loadSigningKeys, type PrivateSigningKey, publicJwk, SIGNING_KEYS_CHANNEL, SIGNING_KEYS_TAG } from "../modules/oauth/signing-keys";

type VerificationKey = Awaited<ReturnType<typeof importJWK>>;

/** The unretired keys at one moment: the first signs, all of them verify. */
export class SigningKeySet {
	/** Equal for two sets of the same keys: an authorization server built from one serves the other. */
	readonly fingerprint: string;
	private readonly verificationKeys = new Map<string, Promise<VerificationKey>>();

	constructor(readonly keys: PrivateSigningKey[]) {
		this.fingerprint = keys.map((key) => key.kid).join(" ");
	}

	get signingKey(): PrivateSigningKey {
		return this.keys[0];
	}

	/** The public key of `kid`, or undefined for a key that is retired or was never ours. */
	verificationKey(kid: string | undefined): Promise<VerificationKey> | undefined {
		const key = kid === undefined ? undefined : this.keys.find((candidate) => candidate.kid === kid);
		if (!key) return undefined;
		let imported = this.verificationKeys.get(key.kid);
		if (!imported) {
			imported = importJWK(publicJwk(key), ACCESS_TOKEN_ALGORITHM);
			this.verificationKeys.set(key.kid, imported);
		}
		return imported;
	}
}

/**
 * This process's view of the signing keys, kept true by NOTIFY (SIGNING_KEYS_CHANNEL): a rotation
 * or retirement by the operator on any machine reaches every instance before the command returns,
 * so the next request signs with the newest key, publishes only unretired keys, and refuses
 * tokens of retired ones. While the notification listener is down, every request reads the keys.
 */
export class SigningKeyRing {
	private readonly cache: NotifiedCache<SigningKeySet>;

	constructor(private readonly services: PlatformServices) {
		this.cache = new NotifiedCache(services.notifications, SIGNING_KEYS_CHANNEL, { tagOf: () => SIGNING_KEYS_TAG });
	}

	current(): Promise<SigningKeySet> {
		return this.cache.get(SIGNING_KEYS_TAG, () => this.read());
	}

	/**
	 * The keys as stored right now, past the cache: for a token naming a key this process has not
	 * heard of, signed by another instance that handled a rotation's notice a moment earlier.
	 */
	async read(): Promise<SigningKeySet> {
		return new SigningKeySet(await loadSigningKeys(this.services.orm, this.services.secrets));
	}
}
