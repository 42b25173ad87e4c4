import type { EntityManager } from "@mikro-orm/postgresql";
import {
	type AssistantConfig,
	AssistantDraftSchema,
	AssistantSchema,
	AssistantVersionSchema,
	EvaluationCaseSchema,
	EvaluationRunSchema,
	type EvaluationTarget,
	type ProviderName,
} from "../../db/entities";
import { EVALUATION_JOB } from "../../jobs/evaluation-job";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import { loadDeployment } from "../assistants/deployment-cache";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZStartEvaluationRunInput } from "./evaluation-inputs";
import { findLiveDataset } from "./find-evaluation-records";
import { presentEvaluationRun } from "./present";
import { storePrincipal } from "./stored-principal";
import { spendQuotaReached } from "./workspace-spend";

interface ResolvedTarget {
	assistantId: string;
	versionId: string | null;
	config: AssistantConfig;
}

/** The target as it is now; the run keeps this config whatever is published or edited later. */
async function resolveTarget(em: EntityManager, workspaceId: string, target: EvaluationTarget): Promise<ResolvedTarget> {
	if (target.kind === "environment") {
		// Read through, not from the deployment cache: the run must freeze what is deployed at this moment.
		const deployment = await loadDeployment(em, { workspaceId, slug: target.assistantSlug, environment: target.environment });
		return { assistantId: deployment.assistantId, versionId: deployment.versionId, config: deployment.config };
	}
	const assistant = await em.findOne(AssistantSchema, { workspace: workspaceId, slug: target.assistantSlug });
	if (!assistant) throw new AppError("ASSISTANT_NOT_FOUND", `No assistant '${target.assistantSlug}' in this workspace`);
	if (target.kind === "draft") {
		const draft = await em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
		return { assistantId: assistant.id, versionId: null, config: draft.config };
	}
	const version = await em.findOne(AssistantVersionSchema, { assistant: assistant.id, version: target.version });
	if (!version) throw AppError.notFound(`Version ${target.version} of assistant '${target.assistantSlug}'`);
	return { assistantId: assistant.id, versionId: version.id, config: version.config };
}

/**
 * run_evaluation: freezes the target's configuration and the dataset's cases, records the run as
 * queued and enqueues its job in the same transaction. Fails fast on what would fail every case:
 * no cases, no credential for the target's provider or a grader's, the spend quota reached.
 */
export async function startEvaluationRun(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZStartEvaluationRunInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:write", input.workspaceId);
	const { em, services } = context;
	const dataset = await findLiveDataset(em, workspaceId, input.datasetId);
	const target = await resolveTarget(em, workspaceId, input.target);
	const cases = await em.find(EvaluationCaseSchema, { dataset: dataset.id, deletedAt: null }, { orderBy: { createdAt: "asc", id: "asc" }, fields: ["id", "scorers"] });
	if (cases.length === 0) throw AppError.validation([{ field: "datasetId", issue: "The dataset has no cases: add some first" }]);
	const providers = new Set<string>([target.config.provider]);
	for (const evaluationCase of cases) for (const scorer of evaluationCase.scorers) if (scorer.type === "rubric") providers.add(String(scorer.provider));
	for (const provider of providers) await services.providers.forWorkspace(() => em, workspaceId, provider as ProviderName);
	if (await spendQuotaReached(em, workspaceId, services.settings.quotas)) {
		throw new AppError("COST_QUOTA_EXCEEDED", "The workspace's monthly spend quota is reached; raise it or wait for the next month");
	}
	const run = await em.transactional(async (tx) => {
		const created = tx.create(EvaluationRunSchema, {
			id: newId("evrun"),
			workspace: workspaceId,
			dataset: dataset.id,
			assistant: target.assistantId,
			version: target.versionId,
			target: input.target,
			config: target.config,
			caseIds: cases.map((evaluationCase) => evaluationCase.id),
			concurrency: input.concurrency,
			principal: storePrincipal(context.principal),
			createdByUser: actingUserId(context),
		});
		await tx.flush();
		await services.jobs.sendInTransaction(EVALUATION_JOB, tx, { runId: created.id });
		return created;
	});
	services.jobs.wake(EVALUATION_JOB);
	return presentEvaluationRun(run);
}
