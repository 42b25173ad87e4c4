import { ZRevokeInvitationInput } from "../../../contract/inputs/invitations";
import { InvitationSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

/** Withdraws an invitation: its link says so from the next time it is opened. One already accepted is a membership now (remove the member instead). */
export async function revokeInvitation(context: UseCaseContext, input: { organizationId?: string; invitationId: string }): Promise<{ id: string; revokedAt: string }> {
	const { organizationId: named, invitationId } = parseUseCaseInput(ZRevokeInvitationInput, input);
	const { organizationId } = await authorizeOrganization(context, "administration:write", named);
	const invitation = await context.em.findOne(InvitationSchema, { id: invitationId, organization: organizationId });
	if (!invitation) throw AppError.notFound("Invitation");
	if (invitation.acceptedAt) throw new AppError("INVALID_REQUEST", `${invitation.email} already accepted this invitation; remove the member instead`);
	if (!invitation.revokedAt) {
		invitation.revokedAt = new Date();
		await context.em.flush();
	}
	return { id: invitation.id, revokedAt: invitation.revokedAt.toISOString() };
}
