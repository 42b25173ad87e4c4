import { createHmac, timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../../shared/crypto";

/**
 * The CSRF token of a session: an HMAC of its token hash under a key derived from SECRET_KEY.
 * Another site can make a browser send the session cookie, but cannot read this value (it is only
 * in same-origin responses), so a state-changing request that carries it came from our pages.
 */
export function csrfTokenFor(secrets: SecretBox, sessionTokenHash: string): string {
	return createHmac("sha256", secrets.deriveKey("dashboard-csrf")).update(sessionTokenHash).digest("base64url");
}

export function isValidCsrfToken(secrets: SecretBox, sessionTokenHash: string, presented: string | undefined): boolean {
	if (!presented) return false;
	const expected = Buffer.from(csrfTokenFor(secrets, sessionTokenHash));
	const given = Buffer.from(presented);
	return given.length === expected.length && timingSafeEqual(given, expected);
}
