import type { Invitation, MemberRole } from "../../db/entities";

export type InvitationStatus = "pending" | "expired" | "accepted" | "revoked";

export interface InvitationView {
	id: string;
	organizationId: string;
	email: string;
	role: MemberRole;
	status: InvitationStatus;
	invitedByUserId: string | null;
	/** The inviter's email, when their account still exists. */
	invitedByEmail: string | null;
	expiresAt: string;
	createdAt: string;
}

/** Used or withdrawn first, then expired: a link accepted yesterday that would have expired today reads "accepted". */
export function invitationStatus(invitation: Pick<Invitation, "acceptedAt" | "revokedAt" | "expiresAt">, now = new Date()): InvitationStatus {
	if (invitation.acceptedAt) return "accepted";
	if (invitation.revokedAt) return "revoked";
	return invitation.expiresAt.getTime() <= now.getTime() ? "expired" : "pending";
}

export function presentInvitation(invitation: Invitation, invitedByEmail: string | null): InvitationView {
	return {
		id: invitation.id,
		organizationId: invitation.organization,
		email: invitation.email,
		role: invitation.role,
		status: invitationStatus(invitation),
		invitedByUserId: invitation.invitedByUser,
		invitedByEmail,
		expiresAt: invitation.expiresAt.toISOString(),
		createdAt: invitation.createdAt.toISOString(),
	};
}
