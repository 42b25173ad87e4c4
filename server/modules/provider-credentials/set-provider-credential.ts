import type { EntityManager } from "@mikro-orm/postgresql";
import { PROVIDERS, type ProviderName, ProviderCredentialSchema, WorkspaceSchema } from "../../db/entities";
import { AppError, type FieldIssue } from "../../shared/app-error";
import type { SecretBox } from "../../shared/crypto";
import { newId } from "../../shared/ids";
import { notifyAndAwaitListeners } from "../../db/notifications";

/** Sent by a trigger on provider_credentials (migration 20261123032310); payload: workspace id. */
export const PROVIDER_CREDENTIAL_CHANNEL = "provider_credential_changed";

export interface ProviderCredentialView {
	id: string;
	workspaceId: string;
	provider: ProviderName;
	apiKeyHint: string;
	baseUrl: string | null;
	updatedAt: string;
}

/**
 * Stores (or replaces) a workspace's credential for one provider, encrypted; never returns the key.
 * Returns once every server process has dropped its cached client for the workspace, so the very
 * next generation anywhere uses the new key (the trigger's own NOTIFY arrives asynchronously).
 */
export async function setProviderCredential(
	em: EntityManager,
	secrets: SecretBox,
	input: { workspaceId: string; provider: string; apiKey: string; baseUrl?: string | null },
): Promise<ProviderCredentialView> {
	const issues: FieldIssue[] = [];
	if (!(PROVIDERS as readonly string[]).includes(input.provider)) {
		issues.push({ field: "provider", issue: `Expected one of ${PROVIDERS.join(", ")}` });
	}
	if (!input.apiKey.trim()) issues.push({ field: "apiKey", issue: "Required" });
	let baseUrl: string | null = null;
	if (input.baseUrl) {
		try {
			const url = new URL(input.baseUrl);
			if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("protocol");
			baseUrl = url.toString().replace(/\/+$/, "");
		} catch {
			issues.push({ field: "baseUrl", issue: "Must be an http(s) URL" });
		}
	} else if (input.provider === "openai-compatible") {
		issues.push({ field: "baseUrl", issue: "Required for openai-compatible" });
	}
	if (issues.length > 0) throw AppError.validation(issues);
	if (!(await em.findOne(WorkspaceSchema, { id: input.workspaceId }))) throw AppError.notFound("Workspace");

	const provider = input.provider as ProviderName;
	const apiKey = input.apiKey.trim();
	const existing = await em.findOne(ProviderCredentialSchema, { workspace: input.workspaceId, provider });
	const credential =
		existing ??
		em.create(ProviderCredentialSchema, {
			id: newId("pcred"),
			workspace: input.workspaceId,
			provider,
			encryptedApiKey: "",
			apiKeyHint: "",
			baseUrl: null,
		});
	credential.encryptedApiKey = secrets.encrypt(apiKey);
	credential.apiKeyHint = apiKey.slice(-4);
	credential.baseUrl = baseUrl;
	await em.flush();
	await notifyAndAwaitListeners(em.config.get("clientUrl") as string, PROVIDER_CREDENTIAL_CHANNEL, input.workspaceId);
	return {
		id: credential.id,
		workspaceId: input.workspaceId,
		provider,
		apiKeyHint: credential.apiKeyHint,
		baseUrl,
		updatedAt: credential.updatedAt.toISOString(),
	};
}
