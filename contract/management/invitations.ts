import { c, metadata } from "../common";
import { ZAcceptInvitationInput, ZCreateInvitationInput, ZDescribeInvitationInput, ZListInvitationsInput, ZRevokeInvitationInput } from "../inputs/invitations";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";
import { ZMembershipRole, ZSession } from "./session";

const ZInvitationStatus = z.enum(["pending", "expired", "accepted", "revoked"]).openapi("InvitationStatus");

export const ZInvitation = z
	.object({
		id: z.string(),
		organizationId: z.string(),
		email: z.string(),
		role: ZMembershipRole,
		status: ZInvitationStatus,
		invitedByUserId: z.string().nullable(),
		invitedByEmail: z.string().nullable(),
		expiresAt: z.string().datetime(),
		createdAt: z.string().datetime(),
	})
	.openapi("Invitation");

export const ZCreatedInvitation = ZInvitation.extend({
	/** The link to hand on, on PUBLIC_BASE_URL: shown once (only the token's hash is kept). */
	url: z.string(),
	/** The link's secret part, to build the link on the address the dashboard was reached at. */
	token: z.string(),
}).openapi("CreatedInvitation");

export const ZInvitationDescription = z
	.object({
		organizationId: z.string(),
		organizationName: z.string(),
		email: z.string(),
		role: ZMembershipRole,
		status: ZInvitationStatus,
		expiresAt: z.string().datetime(),
		invitedBy: z.string().nullable(),
		/** Accepting means signing in with the existing account rather than choosing a password. */
		accountExists: z.boolean(),
	})
	.openapi("InvitationDescription");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 429: ZErrorEnvelope, 500: ZErrorEnvelope };
const organizationPath = ZListInvitationsInput.required({ organizationId: true });

/**
 * Invitations to an organization: made, listed and revoked by its admins; opened by the person
 * invited, who has no session yet (the link's token is the credential), and accepted by setting a
 * password or signing in, which starts their session.
 */
export const invitationsContract = c.router({
	listInvitations: {
		method: "GET",
		path: "/management/organizations/:organizationId/invitations",
		summary: "Invitations not yet used or revoked: pending, or expired in the last 30 days; newest first",
		pathParams: organizationPath,
		responses: { 200: z.object({ data: z.array(ZInvitation) }), ...errors },
		metadata: metadata({ operationId: "listInvitations", tags: ["Members"], session: "required" }),
	},
	createInvitation: {
		method: "POST",
		path: "/management/organizations/:organizationId/invitations",
		summary: "A single-use invitation link, valid for 7 days; the link is in this answer only",
		pathParams: organizationPath,
		body: ZCreateInvitationInput.omit({ organizationId: true }),
		responses: { 201: ZCreatedInvitation, ...errors },
		metadata: metadata({ operationId: "createInvitation", tags: ["Members"], session: "required" }),
	},
	revokeInvitation: {
		method: "DELETE",
		path: "/management/organizations/:organizationId/invitations/:invitationId",
		summary: "Withdraws an invitation: its link stops working",
		pathParams: ZRevokeInvitationInput.required({ organizationId: true }),
		body: c.noBody(),
		responses: { 200: z.object({ id: z.string(), revokedAt: z.string().datetime() }), ...errors },
		metadata: metadata({ operationId: "revokeInvitation", tags: ["Members"], session: "required" }),
	},
	describeInvitation: {
		method: "GET",
		path: "/management/invitations/:token",
		summary: "Where an invitation link leads, as whom, and whether it can still be used",
		description: "The invitation page calls it before anyone signs in: the link's token (256 bits, stored hashed) is the only credential.",
		pathParams: ZDescribeInvitationInput,
		responses: { 200: ZInvitationDescription, ...errors },
		// No session, nothing changed: public, like /healthz.
		metadata: metadata({ operationId: "describeInvitation", tags: ["Invitations"] }),
	},
	acceptInvitation: {
		method: "POST",
		path: "/management/invitations/:token/accept",
		summary: "Accepts an invitation with a new password (a new account) or the existing account's, and signs in",
		pathParams: ZAcceptInvitationInput.pick({ token: true }),
		body: ZAcceptInvitationInput.omit({ token: true }),
		responses: { 200: ZSession, ...errors },
		metadata: metadata({ operationId: "acceptInvitation", tags: ["Invitations"], session: "sign-in" }),
	},
});
