import { ZListInvitationsInput } from "../../../contract/inputs/invitations";
import { InvitationSchema, UserSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type InvitationView, presentInvitation } from "./present-invitation";

/** Invitations expired this long ago are still listed (to invite again); older ones are not. */
const EXPIRED_LISTED_MS = 30 * 24 * 3600 * 1000;

/** The organization's invitations not used or revoked: pending ones, and those that expired in the last 30 days; newest first. */
export async function listInvitations(context: UseCaseContext, input: { organizationId?: string }): Promise<InvitationView[]> {
	const { organizationId } = await authorizeOrganization(context, "administration:read", parseUseCaseInput(ZListInvitationsInput, input).organizationId);
	const invitations = await context.em.find(
		InvitationSchema,
		{ organization: organizationId, acceptedAt: null, revokedAt: null, expiresAt: { $gt: new Date(Date.now() - EXPIRED_LISTED_MS) } },
		{ orderBy: { createdAt: "desc", id: "desc" } },
	);
	const inviterIds = [...new Set(invitations.map((invitation) => invitation.invitedByUser).filter((id): id is string => id !== null))];
	const inviters = new Map((await context.em.find(UserSchema, { id: { $in: inviterIds } }, { fields: ["id", "email"] })).map((user) => [user.id, user.email]));
	return invitations.map((invitation) => presentInvitation(invitation, invitation.invitedByUser ? (inviters.get(invitation.invitedByUser) ?? null) : null));
}
