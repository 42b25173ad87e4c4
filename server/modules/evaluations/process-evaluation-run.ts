import { randomUUID } from "node:crypto";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type EvaluationCase, EvaluationCaseSchema, type EvaluationResult, EvaluationResultSchema, type EvaluationRun, EvaluationRunSchema } from "../../db/entities";
import type { Logger } from "../../shared/logger";
import { createUseCaseContext, type PlatformServices } from "../platform-services";
import { monthOf } from "../quotas/consume-request-quota";
import { aggregateResults } from "./evaluation-aggregates";
import { type CaseResult, runEvaluationCase } from "./run-evaluation-case";
import { starterAccessLost } from "./starter-access";
import { restorePrincipal } from "./stored-principal";

/** A run claimed this many times without finishing (a case that kills its worker each time) is failed, not retried forever. */
export const MAX_RUN_ATTEMPTS = 5;
/** After an attempt failed unexpectedly, the run waits this long before a worker claims it again. */
const RETRY_DELAY_SECONDS = 2;

export type RunOutcome = "completed" | "failed" | "cancelled" | "lease lost" | "released";

/** A run this worker holds: its lease token and which attempt this is. */
export interface RunClaim {
	runId: string;
	token: string;
	attempt: number;
}

/**
 * The fair choice of the next run (evaluation scheduling rule, docs/evaluations.md): among the
 * runs waiting for a worker (queued, or running under a lease that lapsed), take each workspace's
 * oldest; leave out workspaces already running their cap of runs under a live lease; then prefer
 * the workspace running the fewest, then the one whose last run started longest ago (never first),
 * then the oldest run. So workspaces take turns, and one workspace's queue, however long or slow,
 * never holds more than its cap of the workers.
 */
const FAIR_CHOICE = `
	with live as (
	  select workspace_id, count(*)::int as running from evaluation_runs
	  where status = 'running' and lease_token is not null and lease_expires_at >= now()
	  group by workspace_id
	), waiting as (
	  select distinct on (workspace_id) id, workspace_id, created_at from evaluation_runs
	  where status in ('queued', 'running') and (lease_expires_at is null or lease_expires_at < now())
	  order by workspace_id, created_at, id
	)
	select w.id from waiting w left join live l on l.workspace_id = w.workspace_id
	where coalesce(l.running, 0) < ?
	order by coalesce(l.running, 0),
	  (select max(x.started_at) from evaluation_runs x where x.workspace_id = w.workspace_id) nulls first,
	  w.created_at, w.id
	limit 1`;

/**
 * Claims the next run by the fair rule, for this worker: a lease on it (token and expiry) and the
 * attempt number. Null when no run may start now. Claims are serialized across processes by an
 * advisory lock, so the per-workspace counts a claim reads hold until it commits.
 */
export async function claimNextEvaluationRun(services: PlatformServices, options: { leaseSeconds: number; runsPerWorkspace: number }): Promise<RunClaim | null> {
	// Most polls find nothing: that is decided without an ORM transaction, whose AsyncLocalStorage
	// would switch on Node 20's promise hooks for every later request of this process.
	const [due]: { found: boolean }[] = await services.orm.em
		.getConnection()
		.execute("select exists (select 1 from evaluation_runs where status in ('queued', 'running') and (lease_expires_at is null or lease_expires_at < now())) as found");
	if (!due?.found) return null;
	return services.orm.em.fork().transactional(async (tx) => {
		const context = tx.getTransactionContext();
		const connection = tx.getConnection();
		await connection.execute("select pg_advisory_xact_lock(hashtext('evaluation-run-claim'))", [], "all", context);
		const [next]: { id: string }[] = await connection.execute(FAIR_CHOICE, [options.runsPerWorkspace], "all", context);
		if (!next) return null;
		const token = randomUUID();
		const [claimed]: { attempts: number }[] = await connection.execute(
			`update evaluation_runs set status = 'running', started_at = coalesce(started_at, now()), lease_token = ?,
			   lease_expires_at = now() + make_interval(secs => ?), attempts = attempts + 1, updated_at = now()
			 where id = ? and status in ('queued', 'running') and (lease_expires_at is null or lease_expires_at < now()) returning attempts`,
			[token, options.leaseSeconds, next.id],
			"all",
			context,
		);
		// Cancelled between the choice and the claim (a cancel does not take the lock): the next poll chooses again.
		return claimed ? { runId: next.id, token, attempt: claimed.attempts } : null;
	});
}

/** Renews the lease and reads what may stop the run: its status (cancelled) and the workspace's spend quota. */
async function checkIn(em: EntityManager, run: EvaluationRun, token: string, leaseSeconds: number, defaultQuota: number | null): Promise<"go" | "lease lost" | "cancelled" | "quota"> {
	const rows: { held: boolean; status: string; quota: string | null; spent: string | null }[] = await em.getConnection().execute(
		`with renewed as (
		   update evaluation_runs set lease_expires_at = now() + make_interval(secs => ?) where id = ? and lease_token = ? and status = 'running' returning id
		 )
		 select exists (select 1 from renewed) as held, r.status, w.monthly_spend_quota_micro_usd as quota,
		   (select s.cost_micro_usd from workspace_monthly_spend s where s.workspace = w.id and s.month = ?) as spent
		 from evaluation_runs r join workspaces w on w.id = r.workspace_id where r.id = ?`,
		[leaseSeconds, run.id, token, monthOf(new Date()), run.id],
	);
	const row = rows[0];
	if (!row) return "lease lost";
	if (row.status === "cancelled") return "cancelled";
	if (!row.held) return "lease lost";
	const quota = row.quota === null ? defaultQuota : Number(row.quota);
	return quota !== null && Number(row.spent ?? 0) >= quota ? "quota" : "go";
}

/**
 * Keeps the lease while a case is in flight: one generation (with its retries and timeout) may
 * outlast the lease, and renewing only between cases would let the sweeper hand a live run to
 * another worker, which would then generate the same cases again. Calls `onLost` when the run was
 * cancelled or taken over.
 */
function keepLease(services: PlatformServices, runId: string, token: string, leaseSeconds: number, onLost: (why: "lease lost" | "cancelled") => void, logger: Logger): { stop(): void } {
	const renew = async () => {
		const rows: { held: boolean; status: string }[] = await services.orm.em.fork().getConnection().execute(
			`with renewed as (
			   update evaluation_runs set lease_expires_at = now() + make_interval(secs => ?) where id = ? and lease_token = ? and status = 'running' returning id
			 )
			 select exists (select 1 from renewed) as held, status from evaluation_runs where id = ?`,
			[leaseSeconds, runId, token, runId],
		);
		if (!rows[0]?.held) onLost(rows[0]?.status === "cancelled" ? "cancelled" : "lease lost");
	};
	const timer = setInterval(
		// A renewal lost to a database blip is retried next tick; the lease allows two more.
		() => renew().catch((error: unknown) => logger.warn("evaluation lease renewal failed", { runId, error })),
		(leaseSeconds * 1000) / 3,
	);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}

/** Idempotent: a case already scored for the run (by an earlier attempt) keeps its first result. */
async function saveResult(em: EntityManager, result: CaseResult): Promise<void> {
	await em.getConnection().execute(
		`insert into evaluation_results (id, workspace_id, run_id, evaluation_case_id, status, output, scores, score, passed, error, latency_ms, input_tokens, output_tokens, total_tokens, cost_micro_usd, trace, created_at)
		 values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())
		 on conflict (run_id, evaluation_case_id) do nothing`,
		[
			result.id, result.workspace, result.run, result.evaluationCase, result.status, result.output, JSON.stringify(result.scores), result.score, result.passed, result.error,
			result.latencyMs, result.inputTokens, result.outputTokens, result.totalTokens, result.costMicroUsd, result.trace,
		],
	);
}

async function finishRun(em: EntityManager, run: EvaluationRun, token: string, status: "completed" | "failed", failureReason: string | null): Promise<boolean> {
	const results = await em.find(EvaluationResultSchema, { run: run.id }, { fields: ["status", "scores", "latencyMs", "inputTokens", "outputTokens", "totalTokens", "costMicroUsd"] });
	const aggregates = aggregateResults(run.caseIds.length, results as EvaluationResult[]);
	const rows: unknown[] = await em.getConnection().execute(
		`update evaluation_runs set status = ?, aggregates = ?::jsonb, failure_reason = ?, finished_at = now(), lease_token = null, lease_expires_at = null, updated_at = now()
		 where id = ? and lease_token = ? and status = 'running' returning id`,
		[status, JSON.stringify(aggregates), failureReason, run.id, token],
	);
	return rows.length > 0;
}

/** Marks the run cancelled because its starter lost access, with what changed; keeps what was scored. */
async function cancelForLostAccess(em: EntityManager, run: EvaluationRun, token: string, reason: string): Promise<boolean> {
	const results = await em.find(EvaluationResultSchema, { run: run.id }, { fields: ["status", "scores", "latencyMs", "inputTokens", "outputTokens", "totalTokens", "costMicroUsd"] });
	const rows: unknown[] = await em.getConnection().execute(
		`update evaluation_runs set status = 'cancelled', aggregates = ?::jsonb, failure_reason = ?, finished_at = now(), lease_token = null, lease_expires_at = null, updated_at = now()
		 where id = ? and lease_token = ? and status = 'running' returning id`,
		[JSON.stringify(aggregateResults(run.caseIds.length, results as EvaluationResult[])), `Cancelled: ${reason}; cases not run yet were skipped`, run.id, token],
	);
	return rows.length > 0;
}

/**
 * Works a run this worker claimed (claimNextEvaluationRun). Renews the lease every third of it
 * (keepLease) and checks before each case; works the cases without a result yet (so a retried or
 * taken-over run never scores a case twice), `run.concurrency` at a time; then stores the
 * aggregates and completes the run. Stops before its next case when the run is cancelled, its
 * starter lost access (the run is cancelled, saying why), the spend quota is reached (the run
 * fails, saying so), the lease was lost to another worker, or `release` fires (the process is
 * stopping: the lease is given up at once, for another worker to resume the run). An unexpected
 * failure releases the lease after a short delay and rethrows; the next claim resumes where this
 * attempt stopped.
 */
export async function workClaimedRun(services: PlatformServices, claim: RunClaim, options: { leaseSeconds: number; logger: Logger; release: AbortSignal }): Promise<RunOutcome> {
	const em = services.orm.em.fork();
	const { token, attempt } = claim;
	const run = await em.findOneOrFail(EvaluationRunSchema, { id: claim.runId });
	let stop: "lease lost" | "cancelled" | "quota" | "access lost" | "released" | null = null;
	let accessLostBecause = "";
	// No new case starts once the run is cancelled or taken over; cases in flight finish and are kept.
	const lease = keepLease(services, run.id, token, options.leaseSeconds, (why) => (stop ??= why), options.logger);
	const giveUpLease = () => {
		stop ??= "released";
		lease.stop();
		// Cases in flight may still save their results (idempotently); the run is another worker's to resume at once.
		em.fork()
			.getConnection()
			.execute("update evaluation_runs set lease_token = null, lease_expires_at = null where id = ? and lease_token = ?", [run.id, token])
			.catch((error: unknown) => options.logger.warn("could not give up an evaluation run's lease; it lapses instead", { runId: run.id, error }));
	};
	if (options.release.aborted) giveUpLease();
	else options.release.addEventListener("abort", giveUpLease, { once: true });
	try {
		if (attempt > MAX_RUN_ATTEMPTS) {
			await finishRun(em, run, token, "failed", `Gave up after ${MAX_RUN_ATTEMPTS} attempts: each ended without finishing (see the server log)`);
			return "failed";
		}
		const done = new Set(
			((await em.getConnection().execute("select evaluation_case_id from evaluation_results where run_id = ?", [run.id])) as { evaluation_case_id: string }[]).map((row) => row.evaluation_case_id),
		);
		const pendingIds = run.caseIds.filter((id) => !done.has(id));
		const cases = new Map((await em.find(EvaluationCaseSchema, { id: { $in: pendingIds } })).map((row) => [row.id, row] as [string, EvaluationCase]));
		const principal = restorePrincipal(run.principal);
		let next = 0;
		const worker = async () => {
			while (stop === null && next < pendingIds.length) {
				const evaluationCase = cases.get(pendingIds[next++]);
				if (!evaluationCase) continue;
				const verdict = await checkIn(em.fork(), run, token, options.leaseSeconds, services.settings.quotas.monthlySpendQuotaMicroUsd);
				if (verdict !== "go") {
					stop ??= verdict;
					return;
				}
				const lost = await starterAccessLost(services, run.workspace, run.principal);
				if (lost !== null) {
					accessLostBecause ||= lost;
					stop ??= "access lost";
					return;
				}
				if (stop !== null) return;
				// Each case gets its own context (and EntityManager): cases run concurrently.
				const result = await runEvaluationCase(createUseCaseContext(services, principal), run, evaluationCase);
				await saveResult(em.fork(), result);
				services.observability.metrics.recordEvaluationCase(result.status);
			}
		};
		await Promise.all(Array.from({ length: Math.min(run.concurrency, Math.max(1, pendingIds.length)) }, worker));
		const why = stop as typeof stop;
		if (why === "lease lost" || why === "released") return why;
		if (why === "cancelled") {
			// Aggregates of what was scored before the cancel; the status stays cancelled.
			const results = await em.find(EvaluationResultSchema, { run: run.id });
			await em.getConnection().execute("update evaluation_runs set aggregates = ?::jsonb, finished_at = coalesce(finished_at, now()), lease_token = null, lease_expires_at = null where id = ?", [
				JSON.stringify(aggregateResults(run.caseIds.length, results)),
				run.id,
			]);
			return "cancelled";
		}
		if (why === "access lost") return (await cancelForLostAccess(em, run, token, accessLostBecause)) ? "cancelled" : "lease lost";
		if (why === "quota") {
			await finishRun(em, run, token, "failed", "The workspace's monthly spend quota was reached; cases not run yet were skipped");
			return "failed";
		}
		return (await finishRun(em, run, token, "completed", null)) ? "completed" : "lease lost";
	} catch (error) {
		options.logger.error("evaluation run attempt failed; it will be retried", { runId: run.id, attempt, error });
		await em
			.getConnection()
			.execute("update evaluation_runs set lease_token = null, lease_expires_at = now() + make_interval(secs => ?) where id = ? and lease_token = ?", [RETRY_DELAY_SECONDS, run.id, token])
			.catch(() => {});
		throw error;
	} finally {
		lease.stop();
		options.release.removeEventListener("abort", giveUpLease);
	}
}
