import { c, metadata } from "../common";
import { ZDeleteProviderCredentialInput, ZListProviderCredentialsInput, ZSetProviderCredentialInput, ZTestProviderCredentialInput } from "../inputs/provider-credentials";
import { ZErrorEnvelope } from "../schemas/common";
import { ZProviderName } from "../schemas/runtime";
import { z } from "../zod";

export const ZProviderCredential = z
	.object({
		id: z.string(),
		workspaceId: z.string(),
		provider: ZProviderName,
		/** The stored key's last four characters: the key itself is never shown again. */
		apiKeyHint: z.string(),
		baseUrl: z.string().nullable(),
		updatedAt: z.string().datetime(),
	})
	.openapi("ProviderCredential");

export const ZProviderCredentialTest = z
	.object({
		provider: z.string(),
		/** Whether the provider accepted the stored key (its models list, a free call, through the egress policy). */
		works: z.boolean(),
		/** What happened, or why it does not work; never the key. */
		message: z.string(),
		modelCount: z.number().int().nullable(),
		models: z.array(z.string()),
		checkedAt: z.string().datetime(),
	})
	.openapi("ProviderCredentialTest");

const errors = { 400: ZErrorEnvelope, 401: ZErrorEnvelope, 403: ZErrorEnvelope, 404: ZErrorEnvelope, 429: ZErrorEnvelope, 500: ZErrorEnvelope };
const providerPath = ZDeleteProviderCredentialInput;

/** A workspace's model-provider credentials (admins and owners): stored encrypted, shown as their last four characters. */
export const credentialsContract = c.router({
	listProviderCredentials: {
		method: "GET",
		path: "/management/workspaces/:workspaceId/provider-credentials",
		summary: "The workspace's provider credentials: provider, base URL, the key's last four characters",
		pathParams: ZListProviderCredentialsInput,
		responses: { 200: z.object({ data: z.array(ZProviderCredential) }), ...errors },
		metadata: metadata({ operationId: "listProviderCredentials", tags: ["Provider credentials"], session: "required" }),
	},
	setProviderCredential: {
		method: "PUT",
		path: "/management/workspaces/:workspaceId/provider-credentials/:provider",
		summary: "Stores or replaces the provider's key (encrypted; never returned); used by the very next generation",
		pathParams: providerPath,
		body: ZSetProviderCredentialInput.omit({ workspaceId: true, provider: true }),
		responses: { 200: ZProviderCredential, ...errors },
		metadata: metadata({ operationId: "setProviderCredential", tags: ["Provider credentials"], session: "required" }),
	},
	deleteProviderCredential: {
		method: "DELETE",
		path: "/management/workspaces/:workspaceId/provider-credentials/:provider",
		summary: "Deletes the provider's credential; generations with that provider are refused from the next call",
		pathParams: providerPath,
		body: c.noBody(),
		responses: { 200: z.object({ provider: z.string(), deleted: z.literal(true) }), ...errors },
		metadata: metadata({ operationId: "deleteProviderCredential", tags: ["Provider credentials"], session: "required" }),
	},
	testProviderCredential: {
		method: "POST",
		path: "/management/workspaces/:workspaceId/provider-credentials/:provider/test",
		summary: "Whether the provider accepts the stored key: one free call (its models list); works false says why",
		pathParams: ZTestProviderCredentialInput,
		body: c.noBody(),
		responses: { 200: ZProviderCredentialTest, ...errors },
		metadata: metadata({ operationId: "testProviderCredential", tags: ["Provider credentials"], session: "required" }),
	},
});
