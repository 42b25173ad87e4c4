import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { INGESTION_JOB } from "../../jobs/ingestion-job";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { retryDocument } from "./document-lifecycle";
import { findKnowledgeDocument } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

/** A FAILED document goes back to PENDING under a new attempt number, and ingestion runs again. */
export async function retryKnowledgeDocument(context: UseCaseContext, input: { workspaceId?: string; sourceId: string; documentId: string }): Promise<TKnowledgeDocument> {
	const { em, services } = context;
	const ref = { ...input, workspaceId: await authorizeWorkspace(context, "knowledge:write", input.workspaceId) };
	await findKnowledgeDocument(em, ref);
	const retried = await em.transactional((tx) => retryDocument(tx, services.jobs, ref));
	services.jobs.wake(INGESTION_JOB);
	return presentKnowledgeDocument(retried);
}
