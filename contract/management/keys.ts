import { c, metadata } from "../common";
import { ZCreateApiKeyInput, ZListApiKeysInput, ZRevokeApiKeyInput } from "../inputs/api-keys";
import { ZErrorEnvelope } from "../schemas/common";
import { z } from "../zod";

export const ZApiKey = z
	.object({
		id: z.string(),
		name: z.string(),
		/** The first characters only (`csk_live_AbCd`): the secret was shown once, at creation. */
		keyPrefix: z.string(),
		scopes: z.array(z.string()),
		createdByUserId: z.string().nullable(),
		lastUsedAt: z.string().datetime().nullable(),
		revokedAt: z.string().datetime().nullable(),
		createdAt: z.string().datetime(),
	})
	.openapi("ApiKey");

export const ZCreatedApiKey = z
	.object({
		id: z.string(),
		/** The whole secret: in this answer only, never again. */
		key: z.string(),
		keyPrefix: z.string(),
		name: z.string(),
		scopes: z.array(z.string()),
		workspaceId: z.string(),
	})
	.openapi("CreatedApiKey");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 500: ZErrorEnvelope };
const workspacePath = ZListApiKeysInput.pick({ workspaceId: true });

/** A workspace's API keys for the runtime and knowledge APIs (admins and owners). */
export const keysContract = c.router({
	listApiKeys: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/api-keys",
		summary: "The workspace's API keys, newest first: name, prefix, scopes, created, last used (never the secret)",
		pathParams: workspacePath,
		query: z.object({ includeRevoked: z.enum(["true", "false"]).optional().describe("true: revoked keys too (default false)") }).strict(),
		responses: { 200: z.object({ data: z.array(ZApiKey) }), ...errors },
		metadata: metadata({ operationId: "listApiKeys", tags: ["API keys"], session: "required" }),
	},
	createApiKey: {
		method: "POST",
		path: "/management/workspaces/:workspaceId/api-keys",
		summary: "Creates an API key with the scopes given; the secret is in this answer only",
		pathParams: workspacePath,
		body: ZCreateApiKeyInput.omit({ workspaceId: true }),
		responses: { 201: ZCreatedApiKey, ...errors },
		metadata: metadata({ operationId: "createApiKey", tags: ["API keys"], session: "required" }),
	},
	revokeApiKey: {
		method: "DELETE",
		path: "/management/workspaces/:workspaceId/api-keys/:apiKeyId",
		summary: "Revokes an API key: its next request, on any instance, is 401 INVALID_CREDENTIALS",
		pathParams: ZRevokeApiKeyInput,
		body: c.noBody(),
		responses: { 200: z.object({ id: z.string(), revokedAt: z.string().datetime() }), ...errors },
		metadata: metadata({ operationId: "revokeApiKey", tags: ["API keys"], session: "required" }),
	},
});
