import { z } from "../zod";
import { EMAIL_PATTERN, MEMBER_ROLES, organizationId } from "./fields";

/** The inputs of server/modules/invitations: the MCP tools, the operator CLI and the dashboard's routes all take these. */
export const ZCreateInvitationInput = z
	.object({
		organizationId,
		email: z
			.string()
			.trim()
			.min(1, "Required")
			.max(320)
			// zod runs a refinement even after max() failed: the pattern (quadratic at worst) only ever sees 320 characters.
			.refine((email) => email.length > 320 || EMAIL_PATTERN.test(email), "Not an email address")
			.describe("The email address of the person invited; they sign in with it"),
		role: z.enum(MEMBER_ROLES).describe("The role they join with; only owners invite owners"),
	})
	.strict();

export const ZListInvitationsInput = z.object({ organizationId }).strict();

export const ZRevokeInvitationInput = z
	.object({
		organizationId,
		invitationId: z.string().min(1).max(100).describe("The invitation's id (list_invitations)"),
	})
	.strict();

/** The link's secret part: 32 random bytes, base64url. Anything else names no invitation. */
const token = z.string().min(1).max(200).describe("The token at the end of the invitation link");

export const ZDescribeInvitationInput = z.object({ token }).strict();

export const ZAcceptInvitationInput = z
	.object({
		token,
		/** A new account's password, or the existing account's (the invitation's email already has one). */
		password: z.string().min(1, "Required").max(1024),
		/** A new account's display name; ignored for an existing account. */
		name: z.string().trim().max(200).optional(),
	})
	.strict();
