import { randomBytes } from "node:crypto";
import { UserSessionSchema } from "../../db/entities";
import { sha256Hex } from "../../shared/crypto";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

/**
 * A new session for a user who just proved who they are (sign-in, accepted invitation): always a
 * new id and token, never the one the browser brought (session fixation). The token is returned
 * once, for the cookie; only its hash is kept.
 */
export async function startSession(
	context: UseCaseContext,
	input: { userId: string; userAgent?: string; clientAddress?: string },
): Promise<{ sessionId: string; token: string; expiresAt: Date }> {
	const token = randomBytes(32).toString("base64url");
	const now = new Date();
	const expiresAt = new Date(now.getTime() + context.services.settings.sessions.absoluteSeconds * 1000);
	const session = context.em.create(UserSessionSchema, {
		id: newId("ses"),
		tokenHash: sha256Hex(token),
		user: input.userId,
		expiresAt,
		lastSeenAt: now,
		userAgent: input.userAgent?.slice(0, 300) ?? null,
		clientAddress: input.clientAddress?.slice(0, 64) ?? null,
	});
	await context.em.persistAndFlush(session);
	return { sessionId: session.id, token, expiresAt };
}
