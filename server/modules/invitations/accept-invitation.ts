import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { ZAcceptInvitationInput } from "../../../contract/inputs/invitations";
import { type Invitation, InvitationSchema, MembershipSchema, OrganizationSchema, UserSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { insertMembership } from "../members/add-member";
import { signInUser } from "../oauth/sign-in-user";
import type { UseCaseContext } from "../platform-services";
import { checkNewPassword, insertUser } from "../tenancy/create-user";
import { findInvitationByToken } from "./find-invitation-by-token";
import { invitationStatus } from "./present-invitation";

export interface AcceptedInvitation {
	userId: string;
	organizationId: string;
	/** False when the person was a member already (their role stays as it was). */
	joined: boolean;
	/** A new account was created with the password given. */
	accountCreated: boolean;
}

/** Why a link no longer works, in words the person can act on. */
function unusableInvitationError(invitation: Invitation, organizationName: string): AppError {
	const where = organizationName || "the organization";
	switch (invitationStatus(invitation)) {
		case "accepted":
			return new AppError("INVALID_REQUEST", `This invitation has already been used. Sign in to reach ${where}.`);
		case "revoked":
			return new AppError("INVALID_REQUEST", `This invitation was withdrawn. Ask an administrator of ${where} for a new one.`);
		default:
			return new AppError("INVALID_REQUEST", `This invitation expired on ${invitation.expiresAt.toISOString().slice(0, 10)}. Ask an administrator of ${where} for a new one.`);
	}
}

/**
 * A person opens their invitation link and joins the organization with the invited role. Without
 * an account for the invited email they choose a password (and a name) and the account is
 * created; with one, they prove it with its password, through the sign-in throttle like any
 * sign-in. The link works once: the claim is one conditional update, so of two acceptances at once
 * exactly one succeeds, and a link revoked or expired meanwhile is refused. Password work (scrypt,
 * bounded by services.passwords) is done before the transaction, so no row is locked while it runs.
 * The caller (the HTTP route) starts the new session.
 */
export async function acceptInvitation(
	context: UseCaseContext,
	input: { token: string; password: string; name?: string; clientAddress: string },
): Promise<AcceptedInvitation> {
	const { clientAddress, ...given } = input;
	const { token, password, name } = parseUseCaseInput(ZAcceptInvitationInput, given);
	const { em, services } = context;
	const invitation = await findInvitationByToken(em, token);
	const organization = await em.findOne(OrganizationSchema, { id: invitation.organization }, { fields: ["name"] });
	if (invitationStatus(invitation) !== "pending") throw unusableInvitationError(invitation, organization?.name ?? "");

	const existing = await em.findOne(UserSchema, { email: invitation.email }, { fields: ["id"] });
	let userId: string | undefined = existing?.id;
	let passwordHash: string | undefined;
	if (existing) {
		({ userId } = await signInUser(context, { email: invitation.email, password, clientAddress }));
	} else {
		const issues = checkNewPassword(password);
		if (issues.length > 0) throw AppError.validation(issues);
		passwordHash = await services.passwords.hash(password);
	}

	try {
		return await em.transactional(async (tx) => {
			let accountCreated = false;
			if (passwordHash !== undefined) {
				userId = insertUser(tx, { email: invitation.email, passwordHash, name: name ? name : null });
				await tx.flush();
				accountCreated = true;
			}
			const claimed = (await tx
				.getConnection()
				.execute(
					"update invitations set accepted_at = now(), accepted_by_user_id = ? where id = ? and accepted_at is null and revoked_at is null and expires_at > now() returning id",
					[userId, invitation.id],
					"all",
					tx.getTransactionContext(),
				)) as { id: string }[];
			if (claimed.length === 0) {
				// Used, revoked or expired since it was read: say which, as it stands now.
				const current = await tx.findOne(InvitationSchema, { id: invitation.id }, { refresh: true });
				throw unusableInvitationError(current ?? invitation, organization?.name ?? "");
			}
			const member = await tx.findOne(MembershipSchema, { organization: invitation.organization, user: userId as string }, { fields: ["id"] });
			if (!member) {
				insertMembership(tx, { organizationId: invitation.organization, userId: userId as string, role: invitation.role });
				await tx.flush();
			}
			return { userId: userId as string, organizationId: invitation.organization, joined: !member, accountCreated };
		});
	} catch (error) {
		// The invited email signed up another way between the check and the insert.
		if (error instanceof UniqueConstraintViolationException) {
			throw new AppError("INVALID_REQUEST", `An account for ${invitation.email} exists now: open the link again and sign in with it to accept.`);
		}
		throw error;
	}
}
