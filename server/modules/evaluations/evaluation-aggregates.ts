import type { EvaluationResult, EvaluationRunAggregates } from "../../db/entities";

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], fraction: number): number | null {
	if (sorted.length === 0) return null;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

/** What a run reports once its cases are scored; `caseCount` is the run's, so cases never reached count as not passed. */
export function aggregateResults(caseCount: number, results: Pick<EvaluationResult, "status" | "scores" | "latencyMs" | "inputTokens" | "outputTokens" | "totalTokens" | "costMicroUsd">[]): EvaluationRunAggregates {
	const perScorer = new Map<string, { sum: number; count: number }>();
	for (const result of results) {
		for (const score of result.scores) {
			if (score.score === null) continue;
			const entry = perScorer.get(score.scorer) ?? { sum: 0, count: 0 };
			entry.sum += score.score;
			entry.count += 1;
			perScorer.set(score.scorer, entry);
		}
	}
	const latencies = results.flatMap((result) => (result.latencyMs === null ? [] : [result.latencyMs])).sort((a, b) => a - b);
	const passedCases = results.filter((result) => result.status === "passed").length;
	const sum = (pick: (result: (typeof results)[number]) => number) => results.reduce((total, result) => total + Number(pick(result)), 0);
	return {
		caseCount,
		scoredCases: results.length,
		passedCases,
		failedCases: results.filter((result) => result.status === "failed").length,
		erroredCases: results.filter((result) => result.status === "errored").length,
		passRate: caseCount === 0 ? 0 : passedCases / caseCount,
		meanScores: Object.fromEntries([...perScorer].map(([name, entry]) => [name, entry.sum / entry.count])),
		latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
		inputTokens: sum((result) => result.inputTokens),
		outputTokens: sum((result) => result.outputTokens),
		totalTokens: sum((result) => result.totalTokens),
		costMicroUsd: sum((result) => result.costMicroUsd),
	};
}
