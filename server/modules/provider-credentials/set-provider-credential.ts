import { type SetProviderCredentialInput, ZSetProviderCredentialInput } from "../../../contract/inputs/provider-credentials";
import { defineChannel } from "../../db/notifications";
import { type ProviderName, ProviderCredentialSchema, WorkspaceSchema } from "../../db/entities";
import { AppError, type FieldIssue } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

/**
 * Sent by a trigger on provider_credentials (migration 20261123032310) at commit, and again,
 * acknowledged, by the use cases that change credentials; payload: workspace id.
 */
export const PROVIDER_CREDENTIAL_CHANNEL = defineChannel("provider_credential_changed", { acknowledged: true });

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
export async function setProviderCredential(context: UseCaseContext, input: Omit<SetProviderCredentialInput, "provider"> & { provider: string }): Promise<ProviderCredentialView> {
	const { em, services } = context;
	const parsed = parseUseCaseInput(ZSetProviderCredentialInput, input);
	const issues: FieldIssue[] = [];
	const apiKey = parsed.apiKey.trim();
	if (!apiKey) issues.push({ field: "apiKey", issue: "Required" });
	let baseUrl: string | null = null;
	if (parsed.baseUrl) {
		let url: URL | undefined;
		try {
			url = new URL(parsed.baseUrl);
			if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("protocol");
			baseUrl = url.toString().replace(/\/+$/, "");
		} catch {
			issues.push({ field: "baseUrl", issue: "Must be an http(s) URL" });
		}
		// An address the egress policy refuses outright is refused now rather than at the first call;
		// names are judged at every call, by what they resolve to then (server/egress).
		const refusal = baseUrl && url ? services.egress.policy.refusalOfLiteral(url) : undefined;
		if (refusal) issues.push({ field: "baseUrl", issue: `Refused by the egress policy: ${refusal.message}` });
	} else if (parsed.provider === "openai-compatible") {
		issues.push({ field: "baseUrl", issue: "Required for openai-compatible" });
	}
	if (issues.length > 0) throw AppError.validation(issues);
	const workspaceId = await authorizeWorkspace(context, "administration:write", parsed.workspaceId);
	if (!(await em.findOne(WorkspaceSchema, { id: workspaceId }))) throw AppError.notFound("Workspace");

	const provider = parsed.provider;
	const existing = await em.findOne(ProviderCredentialSchema, { workspace: workspaceId, provider });
	const credential =
		existing ??
		em.create(ProviderCredentialSchema, {
			id: newId("pcred"),
			workspace: workspaceId,
			provider,
			encryptedApiKey: "",
			apiKeyHint: "",
			baseUrl: null,
		});
	credential.encryptedApiKey = services.secrets.encrypt(apiKey);
	credential.apiKeyHint = apiKey.slice(-4);
	credential.baseUrl = baseUrl;
	await em.flush();
	await services.notifications.publish(PROVIDER_CREDENTIAL_CHANNEL, workspaceId);
	return {
		id: credential.id,
		workspaceId: workspaceId,
		provider,
		apiKeyHint: credential.apiKeyHint,
		baseUrl,
		updatedAt: credential.updatedAt.toISOString(),
	};
}
