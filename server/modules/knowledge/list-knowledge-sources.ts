import type { TKnowledgeSource } from "../../../contract/schemas/knowledge";
import { KnowledgeSourceSchema } from "../../db/entities";
import { decodeCursor, type Page, toPage } from "../../shared/pagination";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { countKnowledgeDocuments } from "./find-knowledge-records";
import { presentKnowledgeSource } from "./present";

/** The workspace's sources, newest first, a page at a time. */
export async function listKnowledgeSources(context: UseCaseContext, input: { workspaceId?: string; limit: number; cursor?: string }): Promise<Page<TKnowledgeSource>> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "knowledge:read", input.workspaceId);
	const before = decodeCursor(input.cursor);
	const rows = await em.find(KnowledgeSourceSchema, before ? { workspace: workspaceId, id: { $lt: before } } : { workspace: workspaceId }, {
		orderBy: { id: "desc" },
		limit: input.limit + 1,
	});
	const counts = await countKnowledgeDocuments(
		em,
		rows.map((row) => row.id),
	);
	return toPage(rows, input.limit, (row) => presentKnowledgeSource(row, counts.get(row.id) ?? 0));
}
