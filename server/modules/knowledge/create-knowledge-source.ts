import type { EntityManager } from "@mikro-orm/postgresql";
import type { TKnowledgeSource } from "../../../contract/schemas/knowledge";
import { KnowledgeSourceSchema, ProviderCredentialSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { presentKnowledgeSource } from "./present";

/** The embedder that needs no network or credential (see server/knowledge). */
export const BUILTIN_EMBEDDING = { provider: "builtin", model: "builtin-hash-v1", dimensions: 512 } as const;
const DEFAULT_PROVIDER_EMBEDDING: Record<string, string> = { openai: "text-embedding-3-small", mistral: "mistral-embed" };

async function chooseEmbedding(
	em: EntityManager,
	workspaceId: string,
	requested: { provider: string; model: string } | undefined,
): Promise<{ provider: string; model: string; dimensions: number | null }> {
	const credentials = await em.find(ProviderCredentialSchema, { workspace: workspaceId }, { fields: ["provider"] });
	const configured = new Set(credentials.map((credential) => credential.provider as string));
	if (requested) {
		if (requested.provider === "builtin") {
			if (requested.model !== BUILTIN_EMBEDDING.model) {
				throw AppError.validation([{ field: "embeddingModel.model", issue: `The built-in embedder is '${BUILTIN_EMBEDDING.model}'` }]);
			}
			return { ...BUILTIN_EMBEDDING };
		}
		if (!configured.has(requested.provider)) {
			throw new AppError("INVALID_REQUEST", `The workspace has no ${requested.provider} credential to embed with`);
		}
		return { provider: requested.provider, model: requested.model, dimensions: null };
	}
	for (const provider of ["openai", "mistral"]) {
		if (configured.has(provider)) return { provider, model: DEFAULT_PROVIDER_EMBEDDING[provider], dimensions: null };
	}
	return { ...BUILTIN_EMBEDDING };
}

/** A new, empty source; its embedder and vector store are fixed for its life. */
export async function createKnowledgeSource(
	context: UseCaseContext,
	input: { workspaceId?: string; name: string; description?: string; embeddingModel?: { provider: string; model: string } },
): Promise<TKnowledgeSource> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:write", input.workspaceId);
	const embedding = await chooseEmbedding(em, workspaceId, input.embeddingModel);
	const source = em.create(KnowledgeSourceSchema, {
		id: newId("ks"),
		workspace: workspaceId,
		name: input.name,
		description: input.description ?? null,
		embeddingProvider: embedding.provider,
		embeddingModel: embedding.model,
		embeddingDimensions: embedding.dimensions,
		// Fixed for the source's life: its vectors live in one store only.
		vectorStore: context.services.settings.knowledge.vectorStore,
	});
	await em.flush();
	return presentKnowledgeSource(source, 0);
}
