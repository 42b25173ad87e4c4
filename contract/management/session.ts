import { c, metadata } from "../common";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

export const ZSessionUser = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }).openapi("SessionUser");

export const ZMembershipRole = z.enum(["owner", "admin", "member", "viewer"]).openapi("MembershipRole");

export const ZSessionOrganization = z
	.object({
		id: z.string(),
		name: z.string(),
		role: ZMembershipRole,
		/** Whether mcp:admin tools may run for this organization (owners switch it). */
		mcpAdministration: z.enum(["enabled", "disabled"]),
		workspaces: z.array(z.object({ id: z.string(), name: z.string() })),
	})
	.openapi("SessionOrganization");

export const ZSession = z
	.object({
		user: ZSessionUser,
		organizations: z.array(ZSessionOrganization),
		/** Sent back in the X-CSRF-Token header of every state-changing request. */
		csrfToken: z.string(),
		/** When the session ends at the latest (absolute lifetime); idle sessions end earlier. */
		expiresAt: z.string().datetime(),
	})
	.openapi("Session");

export const ZSignIn = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) }).strict().openapi("SignIn");

export const sessionContract = c.router({
	getSession: {
		method: "GET",
		path: "/management/session",
		summary: "The signed-in user, their organizations and workspaces, and the CSRF token",
		responses: { 200: ZSession, 401: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "getSession", tags: ["Session"], session: "required" }),
	},
	signIn: {
		method: "POST",
		path: "/management/session",
		summary: "Signs in with email and password: a new session cookie (the previous one, if any, ends)",
		body: ZSignIn,
		responses: { 200: ZSession, 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 429: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "signIn", tags: ["Session"], session: "sign-in" }),
	},
	signOut: {
		method: "DELETE",
		path: "/management/session",
		summary: "Signs out: this session, or with everywhere=true every session of the user",
		query: z.object({ everywhere: z.enum(["true", "false"]).optional() }),
		body: c.noBody(),
		responses: { 200: z.object({ signedOut: z.literal(true) }), 401: ZErrorEnvelope, 403: ZErrorEnvelope, 500: ZErrorEnvelope },
		metadata: metadata({ operationId: "signOut", tags: ["Session"], session: "required" }),
	},
});
