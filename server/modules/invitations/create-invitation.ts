import { ZCreateInvitationInput } from "../../../contract/inputs/invitations";
import { InvitationSchema, MembershipSchema, UserSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { actingUserId, authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { generateInvitationToken, INVITATION_LIFETIME_MS, invitationUrl } from "./invitation-token";
import { type InvitationView, presentInvitation } from "./present-invitation";

/** Pending invitations an organization may hold at once: plenty for a team, a bound on what one admin can pile up. */
const MAX_PENDING_INVITATIONS = 500;

export interface CreatedInvitation extends InvitationView {
	/** The link to hand to the person: shown here once and never again (only the token's hash is kept). */
	url: string;
	/** The link's secret part, for a client that builds the link on the address it was reached at. */
	token: string;
}

/**
 * An invitation to join the organization with a role: a single-use link, valid for seven days,
 * that the person opens to set their password (or, with an account already, to sign in and
 * accept). No email is sent: whoever invites passes the link on. Only owners invite owners, as
 * only owners grant ownership. A pending invitation for the same email is replaced: its link
 * stops working.
 */
export async function createInvitation(context: UseCaseContext, input: { organizationId?: string; email: string; role: string }): Promise<CreatedInvitation> {
	const { organizationId: named, email: given, role } = parseUseCaseInput(ZCreateInvitationInput, input);
	const email = given.toLowerCase();
	const { organizationId, role: callerRole } = await authorizeOrganization(context, "administration:write", named);
	if (role === "owner" && callerRole !== null && callerRole !== "owner") throw new AppError("FORBIDDEN", "Only an owner invites an owner");
	const { em, services } = context;
	const user = await em.findOne(UserSchema, { email }, { fields: ["id"] });
	if (user && (await em.findOne(MembershipSchema, { organization: organizationId, user: user.id }, { fields: ["id"] }))) {
		throw AppError.validation([{ field: "email", issue: `${email} is already a member of this organization` }]);
	}
	const now = new Date();
	const pending = { organization: organizationId, acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } };
	if ((await em.count(InvitationSchema, pending)) >= MAX_PENDING_INVITATIONS) {
		throw new AppError("INVALID_REQUEST", `This organization has ${MAX_PENDING_INVITATIONS} pending invitations; revoke some before inviting more`);
	}
	await em.nativeUpdate(InvitationSchema, { ...pending, email }, { revokedAt: now });
	const { token, tokenHash } = generateInvitationToken();
	const invitation = em.create(InvitationSchema, {
		id: newId("inv"),
		organization: organizationId,
		email,
		role,
		tokenHash,
		invitedByUser: actingUserId(context),
		expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
		acceptedAt: null,
		acceptedByUser: null,
		revokedAt: null,
	});
	await em.flush();
	const inviter = invitation.invitedByUser ? await em.findOne(UserSchema, { id: invitation.invitedByUser }, { fields: ["email"] }) : null;
	return { ...presentInvitation(invitation, inviter?.email ?? null), url: invitationUrl(services.settings.publicBaseUrl, token), token };
}
