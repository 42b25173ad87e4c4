import type { TKnowledgeDocument, TKnowledgeSource } from "../../../contract/schemas/knowledge";
import type { KnowledgeDocument, KnowledgeSource } from "../../db/entities";

export function presentKnowledgeSource(source: KnowledgeSource, documentCount: number): TKnowledgeSource {
	return {
		id: source.id,
		name: source.name,
		description: source.description,
		embeddingModel: {
			provider: source.embeddingProvider as TKnowledgeSource["embeddingModel"]["provider"],
			model: source.embeddingModel,
			...(source.embeddingDimensions ? { dimensions: source.embeddingDimensions } : {}),
		},
		documentCount,
		createdAt: source.createdAt.toISOString(),
		updatedAt: source.updatedAt.toISOString(),
	};
}

export function presentKnowledgeDocument(document: KnowledgeDocument): TKnowledgeDocument {
	return {
		id: document.id,
		sourceId: document.source,
		filename: document.filename,
		contentType: document.contentType,
		byteSize: document.byteSize,
		status: document.status,
		failureReason: document.status === "FAILED" ? document.failureReason : null,
		chunkCount: document.chunkCount,
		createdAt: document.createdAt.toISOString(),
		updatedAt: document.updatedAt.toISOString(),
	};
}
