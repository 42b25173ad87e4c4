import { ZDescribeInvitationInput } from "../../../contract/inputs/invitations";
import { type MemberRole, OrganizationSchema, UserSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import type { UseCaseContext } from "../platform-services";
import { findInvitationByToken } from "./find-invitation-by-token";
import { type InvitationStatus, invitationStatus } from "./present-invitation";

export interface InvitationDescription {
	organizationId: string;
	organizationName: string;
	email: string;
	role: MemberRole;
	status: InvitationStatus;
	expiresAt: string;
	/** Who invited them, as a name to recognise (their name, else their email); null once that account is gone. */
	invitedBy: string | null;
	/** An account with this email exists: accepting means signing in with it, not choosing a password. */
	accountExists: boolean;
}

/**
 * What the invitation page shows before anyone signs in: where the link leads, as whom, and
 * whether it can still be used. The token is the only credential (256 bits, hashed in the table);
 * whoever holds the link learns this much, which is what the link was sent to tell them.
 */
export async function describeInvitation(context: UseCaseContext, input: { token: string }): Promise<InvitationDescription> {
	const { token } = parseUseCaseInput(ZDescribeInvitationInput, input);
	const { em } = context;
	const invitation = await findInvitationByToken(em, token);
	const organization = await em.findOne(OrganizationSchema, { id: invitation.organization }, { fields: ["name"] });
	const inviter = invitation.invitedByUser ? await em.findOne(UserSchema, { id: invitation.invitedByUser }, { fields: ["name", "email"] }) : null;
	const account = await em.findOne(UserSchema, { email: invitation.email }, { fields: ["id"] });
	return {
		organizationId: invitation.organization,
		organizationName: organization?.name ?? "",
		email: invitation.email,
		role: invitation.role,
		status: invitationStatus(invitation),
		expiresAt: invitation.expiresAt.toISOString(),
		invitedBy: inviter ? (inviter.name ?? inviter.email) : null,
		accountExists: account !== null,
	};
}
