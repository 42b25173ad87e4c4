import type { EntityManager } from "@mikro-orm/postgresql";
import type { TKnowledgeSource } from "../../../contract/schemas/knowledge";
import { KnowledgeDocumentSchema, type KnowledgeSource, KnowledgeSourceSchema, ProviderCredentialSchema } from "../../db/entities";
import { deleteIngestionJobs } from "../../jobs/ingestion-job";
import { notifyVectorsChanged } from "../../knowledge/index/vector-notifications";
import type { KnowledgeServices } from "../../knowledge/knowledge-services";
import { sourceStoragePrefix } from "../../knowledge/storage/object-storage";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { decodeCursor, type Page, toPage } from "../../shared/pagination";
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

export async function createKnowledgeSource(
	em: EntityManager,
	input: { workspaceId: string; name: string; description?: string; embeddingModel?: { provider: string; model: string } },
	services?: Pick<KnowledgeServices, "options">,
): Promise<TKnowledgeSource> {
	const embedding = await chooseEmbedding(em, input.workspaceId, input.embeddingModel);
	const source = em.create(KnowledgeSourceSchema, {
		id: newId("ks"),
		workspace: input.workspaceId,
		name: input.name,
		description: input.description ?? null,
		embeddingProvider: embedding.provider,
		embeddingModel: embedding.model,
		embeddingDimensions: embedding.dimensions,
		// Fixed for the source's life: its vectors live in one store only.
		vectorStore: services?.options.vectorStore ?? "postgres",
	});
	await em.flush();
	return presentKnowledgeSource(source, 0);
}

async function countDocuments(em: EntityManager, sourceIds: string[]): Promise<Map<string, number>> {
	if (sourceIds.length === 0) return new Map();
	const rows: { source_id: string; count: string }[] = await em
		.getConnection()
		.execute("select source_id, count(*) as count from knowledge_documents where source_id in (?) group by source_id", [sourceIds]);
	return new Map(rows.map((row) => [row.source_id, Number(row.count)]));
}

export async function listKnowledgeSources(
	em: EntityManager,
	input: { workspaceId: string; limit: number; cursor?: string },
): Promise<Page<TKnowledgeSource>> {
	const before = decodeCursor(input.cursor);
	const rows = await em.find(
		KnowledgeSourceSchema,
		before ? { workspace: input.workspaceId, id: { $lt: before } } : { workspace: input.workspaceId },
		{ orderBy: { id: "desc" }, limit: input.limit + 1 },
	);
	const counts = await countDocuments(
		em,
		rows.map((row) => row.id),
	);
	return toPage(rows, input.limit, (row) => presentKnowledgeSource(row, counts.get(row.id) ?? 0));
}

/** Another workspace's source is NOT_FOUND, never FORBIDDEN: ids must not leak across tenants. */
export async function findKnowledgeSource(em: EntityManager, workspaceId: string, sourceId: string): Promise<KnowledgeSource> {
	const source = await em.findOne(KnowledgeSourceSchema, { id: sourceId, workspace: workspaceId });
	if (!source) throw AppError.notFound("Knowledge source");
	return source;
}

export async function getKnowledgeSource(em: EntityManager, input: { workspaceId: string; sourceId: string }): Promise<TKnowledgeSource> {
	const source = await findKnowledgeSource(em, input.workspaceId, input.sourceId);
	const counts = await countDocuments(em, [source.id]);
	return presentKnowledgeSource(source, counts.get(source.id) ?? 0);
}

/**
 * Deletes the source and everything in it. With the knowledge services (the API always passes
 * them) it also removes pending ingestion jobs in the same transaction, tells every instance to
 * drop the source's cached vectors, and deletes the stored bytes once the rows are gone.
 */
export async function deleteKnowledgeSource(
	em: EntityManager,
	input: { workspaceId: string; sourceId: string },
	services?: KnowledgeServices,
): Promise<{ id: string; deleted: true }> {
	const source = await findKnowledgeSource(em, input.workspaceId, input.sourceId);
	await em.transactional(async (tx) => {
		if (services) await deleteIngestionJobs(services.boss, tx, { sourceId: source.id });
		// Documents and chunks go with it through ON DELETE CASCADE, in one statement.
		await tx.nativeDelete(KnowledgeDocumentSchema, { source: source.id });
		await tx.nativeDelete(KnowledgeSourceSchema, { id: source.id });
		await notifyVectorsChanged(tx, source.id);
	});
	// After the commit: a failed delete leaves orphan files or vectors, never documents without bytes.
	if (services) {
		await settleAll([
			services.vectorIndexes.forSource(em, source).deleteSource(source.id),
			services.storage.deletePrefix(sourceStoragePrefix(source.workspace, source.id)),
		]);
	}
	return { id: source.id, deleted: true };
}

/**
 * Runs post-commit cleanups to the end even when one fails (an index outage must not leave the
 * bytes behind, nor the reverse), then reports the first failure.
 */
export async function settleAll(cleanups: Promise<unknown>[]): Promise<void> {
	const outcomes = await Promise.allSettled(cleanups);
	const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
	if (failure) throw failure.reason;
}
