import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../shared/crypto";

export const API_KEY_PREFIX = "csk_live_";

/** `csk_live_` + 32 random bytes in base64url (43 characters): 256 bits, unguessable. */
export function generateApiKey(): { key: string; keyHash: string; keyPrefix: string } {
	const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
	return { key, keyHash: hashApiKey(key), keyPrefix: key.slice(0, API_KEY_PREFIX.length + 4) };
}

export function hashApiKey(key: string): string {
	return sha256Hex(key);
}
