import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { KnowledgeDocumentSchema } from "../../db/entities";
import { decodeCursor, type Page, toPage } from "../../shared/pagination";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findKnowledgeSource } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

/** A source's documents with their status, newest first, a page at a time. */
export async function listKnowledgeDocuments(
	context: UseCaseContext,
	input: { workspaceId?: string; sourceId: string; limit: number; cursor?: string },
): Promise<Page<TKnowledgeDocument>> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	const source = await findKnowledgeSource(em, workspaceId, input.sourceId);
	const before = decodeCursor(input.cursor);
	const rows = await em.find(KnowledgeDocumentSchema, before ? { source: source.id, id: { $lt: before } } : { source: source.id }, {
		orderBy: { id: "desc" },
		limit: input.limit + 1,
	});
	return toPage(rows, input.limit, presentKnowledgeDocument);
}
