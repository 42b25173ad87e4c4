import type { TKnowledgeDocument } from "../../../contract/schemas/knowledge";
import { enqueueIngestion, INGESTION_JOB } from "../../jobs/ingestion-job";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findKnowledgeDocument } from "./find-knowledge-records";
import { presentKnowledgeDocument } from "./present";

/** A FAILED document goes back to PENDING under a new attempt number, and ingestion runs again. */
export async function retryKnowledgeDocument(context: UseCaseContext, input: { workspaceId?: string; sourceId: string; documentId: string }): Promise<TKnowledgeDocument> {
	const { em, services } = context;
	const ref = { ...input, workspaceId: await authorizeWorkspace(context, "knowledge:write", input.workspaceId) };
	await findKnowledgeDocument(em, ref);
	const retried = await em.transactional(async (tx) => {
		const locked = await findKnowledgeDocument(tx, ref, { lock: true });
		if (locked.status !== "FAILED") throw new AppError("INVALID_REQUEST", `Only a FAILED document can be retried; this one is ${locked.status}`);
		locked.status = "PENDING";
		locked.failureReason = null;
		locked.processingStartedAt = null;
		locked.attempts += 1;
		// Asked for by a person (the budgets may have changed): parser deaths are counted afresh.
		locked.unfinishedParses = 0;
		await tx.flush();
		await enqueueIngestion(services.jobs, tx, { documentId: locked.id, sourceId: locked.source, attempt: locked.attempts });
		return locked;
	});
	services.jobs.wake(INGESTION_JOB);
	return presentKnowledgeDocument(retried);
}
