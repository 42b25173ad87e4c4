import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../shared/crypto";

/** How long a link works: long enough to reach someone over a weekend, short enough that a forgotten one dies. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes (256 bits) in base64url: the link's secret. Only its SHA-256 is stored, so a copy of the table invites nobody. */
export function generateInvitationToken(): { token: string; tokenHash: string } {
	const token = randomBytes(32).toString("base64url");
	return { token, tokenHash: sha256Hex(token) };
}

/** The stored hash of a token, or undefined for text that cannot be one (answered without a query). */
export function invitationTokenHash(token: string): string | undefined {
	return TOKEN_FORMAT.test(token) ? sha256Hex(token) : undefined;
}

/** The page a person opens to accept: the dashboard's, at PUBLIC_BASE_URL. */
export function invitationUrl(publicBaseUrl: string, token: string): string {
	return `${publicBaseUrl.replace(/\/+$/, "")}/invitations/${token}`;
}
