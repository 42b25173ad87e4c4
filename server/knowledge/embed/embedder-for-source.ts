import type { EntityManager } from "@mikro-orm/postgresql";
import { type KnowledgeSource, ProviderCredentialSchema } from "../../db/entities";
import type { Egress } from "../../egress/egress";
import type { SecretBox } from "../../shared/crypto";
import type { IndexBuilderPool } from "../index/index-builder-pool";
import { BuiltinEmbedder } from "./builtin-embedder";
import { type Embedder, EmbeddingError } from "./embedder";
import { ProviderEmbedder } from "./provider-embedder";

/**
 * The embedder fixed for a source at its creation, with the workspace's current credential, calling
 * out through the egress policy; the builtin one computes on the index-builder threads.
 */
export async function embedderForSource(
	em: EntityManager,
	services: { secrets: SecretBox; egress: Egress; search: { builders: IndexBuilderPool } },
	source: Pick<KnowledgeSource, "workspace" | "embeddingProvider" | "embeddingModel">,
	options: { attempts?: number; timeoutMs?: number } = {},
): Promise<Embedder> {
	if (source.embeddingProvider === "builtin") return new BuiltinEmbedder({ pool: services.search.builders, workspace: source.workspace });
	const credential = await em.findOne(ProviderCredentialSchema, { workspace: source.workspace, provider: source.embeddingProvider as never });
	if (!credential) {
		throw new EmbeddingError(`The workspace has no ${source.embeddingProvider} credential any more; add one to embed with ${source.embeddingModel}`, false, "invalid_request");
	}
	return new ProviderEmbedder({
		provider: source.embeddingProvider,
		model: source.embeddingModel,
		apiKey: services.secrets.decrypt(credential.encryptedApiKey),
		baseUrl: credential.baseUrl,
		fetch: services.egress.fetch,
		attempts: options.attempts,
		timeoutMs: options.timeoutMs,
	});
}
