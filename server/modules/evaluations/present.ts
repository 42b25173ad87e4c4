import type { EvaluationCase, EvaluationDataset, EvaluationResult, EvaluationRun } from "../../db/entities";

export function presentEvaluationDataset(dataset: EvaluationDataset, caseCount: number) {
	return {
		id: dataset.id,
		name: dataset.name,
		description: dataset.description,
		caseCount,
		createdAt: dataset.createdAt.toISOString(),
		updatedAt: dataset.updatedAt.toISOString(),
	};
}

export function presentEvaluationCase(evaluationCase: EvaluationCase) {
	return {
		id: evaluationCase.id,
		datasetId: evaluationCase.dataset,
		input: evaluationCase.input,
		messages: evaluationCase.messages,
		variables: evaluationCase.variables,
		expectedOutput: evaluationCase.expectedOutput,
		scorers: evaluationCase.scorers,
		replacesCaseId: evaluationCase.replacesCase,
		deleted: evaluationCase.deletedAt !== null,
		createdAt: evaluationCase.createdAt.toISOString(),
	};
}

export function presentEvaluationRun(run: EvaluationRun) {
	return {
		id: run.id,
		datasetId: run.dataset,
		status: run.status,
		target: run.target,
		assistantId: run.assistant,
		versionId: run.version,
		provider: run.config.provider,
		model: run.config.model,
		caseCount: run.caseIds.length,
		concurrency: run.concurrency,
		aggregates: run.aggregates ?? null,
		failureReason: run.failureReason ?? null,
		startedBy: run.principal.kind === "user" || run.principal.kind === "session" ? { kind: "user", userId: run.principal.userId } : run.principal.kind === "api_key" ? { kind: "api_key", apiKeyId: run.principal.apiKeyId } : { kind: "operator" },
		createdAt: run.createdAt.toISOString(),
		startedAt: run.startedAt?.toISOString() ?? null,
		finishedAt: run.finishedAt?.toISOString() ?? null,
	};
}

export function presentEvaluationResult(result: EvaluationResult) {
	return {
		caseId: result.evaluationCase,
		status: result.status,
		output: result.output,
		score: result.score,
		passed: result.passed,
		scores: result.scores,
		error: result.error,
		latencyMs: result.latencyMs,
		usage: { inputTokens: result.inputTokens, outputTokens: result.outputTokens, totalTokens: result.totalTokens },
		costMicroUsd: result.costMicroUsd,
		traceId: result.trace,
	};
}
