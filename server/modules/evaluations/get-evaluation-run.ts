import type { EntityManager } from "@mikro-orm/postgresql";
import { EvaluationCaseSchema, type EvaluationResult, EvaluationResultSchema, type EvaluationRun } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { parseInput, ZGetEvaluationRunInput } from "./evaluation-inputs";
import { findRun } from "./find-evaluation-records";
import { presentEvaluationCase, presentEvaluationResult, presentEvaluationRun } from "./present";

/** Scores closer than this are equal: means of floating-point scores. */
const EPSILON = 1e-9;

async function readRun(em: EntityManager, run: EvaluationRun) {
	const results = await em.find(EvaluationResultSchema, { run: run.id });
	const byCase = new Map(results.map((result) => [result.evaluationCase, result]));
	// Cases as the run froze them, deleted ones included: past runs stay readable.
	const cases = new Map((await em.find(EvaluationCaseSchema, { id: { $in: run.caseIds } })).map((row) => [row.id, row]));
	return { run, byCase, cases };
}

type ReadRun = Awaited<ReturnType<typeof readRun>>;

function caseEntries({ run, byCase, cases }: ReadRun) {
	return run.caseIds.map((caseId) => {
		const evaluationCase = cases.get(caseId);
		const result = byCase.get(caseId);
		return {
			caseId,
			case: evaluationCase ? presentEvaluationCase(evaluationCase) : null,
			result: result ? presentEvaluationResult(result) : null,
		};
	});
}

/** A case's standing in a run: its mean score (errored and unscored cases count 0) and whether it passed. */
function standing(result: EvaluationResult | undefined): { score: number; passed: boolean; status: string } {
	if (!result) return { score: 0, passed: false, status: "not run" };
	return { score: result.score ?? 0, passed: result.passed, status: result.status };
}

/**
 * The candidate run side by side with a baseline, case by case (cases both runs have): scores,
 * the difference (candidate minus baseline), and the cases that regressed (passed before and not
 * now, or a lower score) or improved. Aggregates are differenced the same way.
 */
function compareRuns(candidate: ReadRun, baseline: ReadRun) {
	const shared = candidate.run.caseIds.filter((caseId) => baseline.run.caseIds.includes(caseId));
	const cases = shared.map((caseId) => {
		const now = standing(candidate.byCase.get(caseId));
		const before = standing(baseline.byCase.get(caseId));
		const scoreDifference = now.score - before.score;
		const regressed = (before.passed && !now.passed) || scoreDifference < -EPSILON;
		const improved = !regressed && ((!before.passed && now.passed) || scoreDifference > EPSILON);
		const scorers = new Map<string, { candidate: number | null; baseline: number | null }>();
		for (const score of candidate.byCase.get(caseId)?.scores ?? []) scorers.set(score.scorer, { candidate: score.score, baseline: null });
		for (const score of baseline.byCase.get(caseId)?.scores ?? []) scorers.set(score.scorer, { candidate: scorers.get(score.scorer)?.candidate ?? null, baseline: score.score });
		return {
			caseId,
			input: candidate.cases.get(caseId)?.input ?? null,
			candidate: { status: now.status, score: now.score, passed: now.passed, output: candidate.byCase.get(caseId)?.output ?? null },
			baseline: { status: before.status, score: before.score, passed: before.passed, output: baseline.byCase.get(caseId)?.output ?? null },
			scoreDifference,
			scorers: [...scorers].map(([scorer, pair]) => ({ scorer, ...pair, difference: pair.candidate !== null && pair.baseline !== null ? pair.candidate - pair.baseline : null })),
			verdict: (regressed ? "regressed" : improved ? "improved" : "unchanged") as "regressed" | "improved" | "unchanged",
		};
	});
	const candidateAggregates = candidate.run.aggregates;
	const baselineAggregates = baseline.run.aggregates;
	const meanScoreNames = new Set([...Object.keys(candidateAggregates?.meanScores ?? {}), ...Object.keys(baselineAggregates?.meanScores ?? {})]);
	return {
		baselineRun: presentEvaluationRun(baseline.run),
		sharedCases: shared.length,
		onlyInCandidate: candidate.run.caseIds.filter((caseId) => !baseline.run.caseIds.includes(caseId)),
		onlyInBaseline: baseline.run.caseIds.filter((caseId) => !candidate.run.caseIds.includes(caseId)),
		aggregateDifference:
			candidateAggregates && baselineAggregates
				? {
						passRate: candidateAggregates.passRate - baselineAggregates.passRate,
						meanScores: Object.fromEntries(
							[...meanScoreNames].map((name) => [
								name,
								name in candidateAggregates.meanScores && name in baselineAggregates.meanScores ? candidateAggregates.meanScores[name] - baselineAggregates.meanScores[name] : null,
							]),
						),
						costMicroUsd: candidateAggregates.costMicroUsd - baselineAggregates.costMicroUsd,
						latencyP50Ms: candidateAggregates.latencyMs.p50 !== null && baselineAggregates.latencyMs.p50 !== null ? candidateAggregates.latencyMs.p50 - baselineAggregates.latencyMs.p50 : null,
					}
				: null,
		regressedCaseIds: cases.filter((entry) => entry.verdict === "regressed").map((entry) => entry.caseId),
		improvedCaseIds: cases.filter((entry) => entry.verdict === "improved").map((entry) => entry.caseId),
		cases,
	};
}

/**
 * A run with its aggregates and per-case results. With `compareToRunId` (a baseline run of the
 * same dataset) it also answers "is this better than that": the two side by side, per case.
 */
export async function getEvaluationRun(context: UseCaseContext, rawInput: unknown) {
	const input = parseInput(ZGetEvaluationRunInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "evaluations:read", input.workspaceId);
	const { em } = context;
	const candidate = await readRun(em, await findRun(em, workspaceId, input.runId));
	const answer = { ...presentEvaluationRun(candidate.run), cases: caseEntries(candidate), comparison: null as ReturnType<typeof compareRuns> | null };
	if (input.compareToRunId === undefined) return answer;
	const baselineRun = await findRun(em, workspaceId, input.compareToRunId);
	if (baselineRun.dataset !== candidate.run.dataset) {
		throw AppError.validation([{ field: "compareToRunId", issue: "Runs compare case by case: the baseline must be a run of the same dataset" }]);
	}
	return { ...answer, comparison: compareRuns(candidate, await readRun(em, baselineRun)) };
}
