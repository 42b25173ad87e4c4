import { c, metadata } from "../common";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

export const ZConnection = z
	.object({
		id: z.string(),
		clientId: z.string(),
		clientName: z.string().nullable(),
		/** Null: every organization of the user (an explicit opt-in at consent). */
		organizationId: z.string().nullable(),
		organizationName: z.string().nullable(),
		scopes: z.array(z.string()),
		createdAt: z.string().datetime(),
		lastUsedAt: z.string().datetime().nullable(),
		revokedAt: z.string().datetime().nullable(),
		/** When it ends unless used; null once revoked or ended. */
		expiresAt: z.string().datetime().nullable(),
	})
	.openapi("Connection");

const errors = { 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };

/** The signed-in person's own things: Connected applications (their MCP connections). */
export const accountContract = c.router({
	listConnections: {
		method: "GET",
		path: "/management/account/connections",
		summary: "The signed-in person's MCP connections (Connected applications), newest first, ended ones marked",
		responses: { 200: z.object({ data: z.array(ZConnection) }), ...errors },
		metadata: metadata({ operationId: "listConnections", tags: ["Account"], session: "required" }),
	},
	revokeConnection: {
		method: "DELETE",
		path: "/management/account/connections/:connectionId",
		summary: "Revokes one of the person's connections: its access tokens fail on their next request, its refresh token is gone",
		pathParams: z.object({ connectionId: z.string().min(1).max(80) }),
		body: c.noBody(),
		responses: { 200: z.object({ id: z.string(), revoked: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "revokeConnection", tags: ["Account"], session: "required" }),
	},
});
