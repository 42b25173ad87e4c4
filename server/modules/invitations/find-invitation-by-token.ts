import type { EntityManager } from "@mikro-orm/postgresql";
import { type Invitation, InvitationSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { invitationTokenHash } from "./invitation-token";

/** One message for a token that is malformed, unknown or another's: a link either names an invitation or it does not. */
export function unknownInvitationError(): AppError {
	return new AppError("NOT_FOUND", "This invitation link is not valid. Check that it was copied whole, or ask for a new invitation.");
}

export async function findInvitationByToken(em: EntityManager, token: string): Promise<Invitation> {
	const tokenHash = invitationTokenHash(token);
	const invitation = tokenHash ? await em.findOne(InvitationSchema, { tokenHash }) : null;
	if (!invitation) throw unknownInvitationError();
	return invitation;
}
