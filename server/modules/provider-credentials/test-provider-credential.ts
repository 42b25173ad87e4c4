import { ZTestProviderCredentialInput } from "../../../contract/inputs/provider-credentials";
import { ProviderCredentialSchema } from "../../db/entities";
import { Cancellation } from "../../providers/cancellation";
import { ProviderError } from "../../providers/provider-error";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

/** Long enough for a slow provider's first TLS handshake, short enough for a person waiting on a button. */
const TEST_TIMEOUT_MS = 15_000;

export interface ProviderCredentialTest {
	provider: string;
	/** Whether the provider accepted the stored key. */
	works: boolean;
	/** What happened, for a person: the models offered, or why not (never the key). */
	message: string;
	/** Models the provider offers (null when it did not say, or refused). */
	modelCount: number | null;
	/** The first few of them. */
	models: string[];
	checkedAt: string;
}

/**
 * Tries the workspace's stored credential for a provider with one free call, through the same
 * adapter (and so the same egress policy) as its generations: the provider's models list
 * (server/providers/credential-check.ts says why that call). A key the provider refuses, a base
 * URL the egress policy refuses (naming EGRESS_ALLOW_HOSTS), an unreachable or silent provider are
 * answers, `works: false`, not errors: the test ran, and this is what it found.
 */
export async function testProviderCredential(context: UseCaseContext, input: { workspaceId: string; provider: string }): Promise<ProviderCredentialTest> {
	const { workspaceId: named, provider } = parseUseCaseInput(ZTestProviderCredentialInput, input);
	const workspaceId = await authorizeWorkspace(context, "administration:write", named);
	if (!(await context.em.findOne(ProviderCredentialSchema, { workspace: workspaceId, provider }, { fields: ["id"] }))) {
		throw AppError.notFound(`Credential for provider '${provider}'`);
	}
	const answer = (works: boolean, message: string, found: { modelCount: number | null; models: string[] } = { modelCount: null, models: [] }): ProviderCredentialTest => ({
		provider,
		works,
		message,
		...found,
		checkedAt: new Date().toISOString(),
	});
	const deadline = new Cancellation();
	const timer = setTimeout(() => deadline.abort(new Error("credential test timeout")), TEST_TIMEOUT_MS);
	try {
		const adapter = await context.services.providers.forWorkspace(() => context.em, workspaceId, provider);
		const found = await adapter.verifyCredential(deadline);
		const offered = found.modelCount === null ? "" : ` and lists ${found.modelCount} model${found.modelCount === 1 ? "" : "s"}`;
		return answer(true, `${provider} accepted the key${offered}.`, found);
	} catch (error) {
		if (error instanceof ProviderError) {
			if (error.kind === "aborted" && deadline.aborted) return answer(false, `${provider} did not answer within ${TEST_TIMEOUT_MS / 1000} seconds.`);
			return answer(false, error.message);
		}
		// An adapter that cannot be built from what is stored (an openai-compatible credential without a base URL).
		if (error instanceof AppError && error.code === "INVALID_REQUEST") return answer(false, error.message);
		throw error;
	} finally {
		clearTimeout(timer);
	}
}
