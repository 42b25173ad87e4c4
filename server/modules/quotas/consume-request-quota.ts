import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError } from "../../shared/app-error";
import { invalidApiKeyError } from "../api-keys/authenticate-api-key";
import type { SpendLedger } from "../traces/trace-writer";
import type { WindowCounter } from "./redis-window-counter";

export interface QuotaDefaults {
	/** Requests per minute per API key when the workspace has no override; 0 = unlimited. */
	rateLimitPerMinute: number;
	/** Monthly traced spend per workspace when it has no override; null = unlimited. */
	monthlySpendQuotaMicroUsd: number | null;
	/** MCP control plane: JSON-RPC requests per minute per OAuth connection; 0 = unlimited (consume-mcp-request-quota.ts). */
	mcpConnectionRequestsPerMinute: number;
	/** ... and per user, over all their connections; 0 = unlimited. */
	mcpUserRequestsPerMinute: number;
}

export const DEFAULT_QUOTAS: QuotaDefaults = { rateLimitPerMinute: 600, monthlySpendQuotaMicroUsd: null, mcpConnectionRequestsPerMinute: 300, mcpUserRequestsPerMinute: 600 };

const WINDOW_MS = 60_000;
/** Workspace limits and the spend figure are re-read at least this often per key. */
const REFRESH_MS = 1_000;
/** A reservation takes at most 1/BLOCK_DIVISOR of the limit, so instances cannot starve each other. */
const BLOCK_DIVISOR = 20;
const MAX_BLOCK = 100;
const MAX_TRACKED_KEYS = 10_000;
/** Expired windows are swept every this many requests counted one by one (countRequests). */
const SWEEP_EVERY_COUNTS = 1000;

/** `YYYY-MM-01` of the UTC month: the key of workspace_monthly_spend. */
export function monthOf(date: Date): string {
	return `${date.toISOString().slice(0, 7)}-01`;
}

/** The smallest claim for a limit: 1 for small limits, so they stay exact (same formula as the SQL). */
export function reservationSize(limit: number): number {
	return Math.max(1, Math.min(MAX_BLOCK, Math.floor(limit / BLOCK_DIVISOR)));
}

/**
 * How many requests one claim takes: a block, or as many as are waiting when more are, never more
 * than the limit (same formula as the SQL). A burst is thus decided in a round trip or two
 * whatever its size, and a block left unused stays small.
 */
export function claimSize(limit: number, waiting: number): number {
	return Math.min(limit, Math.max(reservationSize(limit), waiting));
}

/**
 * Each API key has one request budget per API family, both of the key's limit: bulk knowledge work
 * (an ingestion script uploading and polling) never takes the requests of the generations a product
 * serves with the same key, and the reverse. Only the runtime budget answers for spend.
 */
export type RequestBudget = "runtime" | "knowledge";

export interface QuotaSubject {
	apiKeyId: string;
	workspaceId: string;
	budget: RequestBudget;
}

/** The counter of a key's budget, in rate_limit_windows or Redis; the runtime's is the key alone, as before budgets. */
function counterSubject(subject: QuotaSubject): string {
	return subject.budget === "runtime" ? `key:${subject.apiKeyId}` : `key:${subject.apiKeyId}:${subject.budget}`;
}

interface KeyState {
	subject: QuotaSubject;
	workspaceId: string;
	windowStart: number;
	/** Requests this process has reserved in the window and not yet used. */
	remaining: number;
	/** The last reservation got less than it asked for: the window is used up everywhere. */
	exhausted: boolean;
	limit: number;
	quota: number | null;
	spent: number;
	checkedAt: number;
	/** Requests of this key waiting for a claim, first come first served. */
	waiting: { resolve: () => void; reject: (error: unknown) => void }[];
	claiming: boolean;
}

type Row = { rate_limit_per_minute: number | null; monthly_spend_quota_micro_usd: string | null; spent: string | null; claimed: number | null };


/**
 * Per-key rate limit and per-workspace spend quota, without a database write per request.
 *
 * Rate limit: a fixed one-minute window per key, counted in `rate_limit_windows` so it holds
 * across server instances. Each process claims requests with one atomic upsert that adds the
 * claim to the window's counter; the claim's requests numbered up to the limit are granted, the
 * rest refused. Claims are disjoint ranges of one counter, so the sum of what all processes grant
 * never exceeds the limit. Requests that find nothing reserved queue per key, and one claim at a
 * time serves them in order, sized to the queue (claimSize): a burst of any size gets exactly what
 * is left of the limit, the rest 429 with the seconds until the window ends. A claim with no burst
 * behind it takes a block of 1/20 of the limit (1 for limits under 40, i.e. exact per-request
 * counting), so requests a process reserved but did not use can refuse other instances at most
 * that much early.
 *
 * With REDIS_URL the window counters live in Redis instead (redis-window-counter.ts: the same
 * block claims, one INCRBY each), and PostgreSQL is only read; while Redis is unreachable a claim
 * falls back to the PostgreSQL counter.
 *
 * Spend: the workspace's limit and spend are read with each claim and at least every second;
 * this process's own cost counts the moment a generation ends (addUnstoredSpend, until the trace
 * writer has stored it), so the quota lags only other instances' spend, by up to ~1.2 s. A request
 * is admitted while the spend is below the quota: generations already running when it is reached
 * still finish.
 */
export class RequestQuotas implements SpendLedger {
	private readonly keys = new Map<string, KeyState>();
	/** Per workspace: cost this process traced that is not in workspace_monthly_spend yet (trace-writer.ts). */
	private readonly unstoredSpend = new Map<string, number>();
	/** Requests counted one by one (countRequests) since the last sweep of expired windows. */
	private countedSinceSweep = 0;

	constructor(
		private readonly defaults: Pick<QuotaDefaults, "rateLimitPerMinute" | "monthlySpendQuotaMicroUsd">,
		private readonly counter?: { windows: WindowCounter; onUnavailable: (error: unknown) => void },
	) {}

	/** Resolves at once (no database) while the key's budget has reserved requests and fresh settings. */
	consume(em: () => EntityManager, input: QuotaSubject, now = Date.now()): Promise<void> | undefined {
		const state = this.keys.get(counterSubject(input));
		if (state && state.workspaceId === input.workspaceId && state.waiting.length === 0 && now - state.checkedAt < REFRESH_MS) {
			const verdict = this.take(state, now);
			if (verdict !== "claim") return verdict === "ok" ? undefined : Promise.reject(verdict);
		}
		return this.wait(em, input);
	}

	/** Queues the request behind the key's claim, starting one if none runs. */
	private wait(em: () => EntityManager, input: QuotaSubject): Promise<void> {
		const name = counterSubject(input);
		let state = this.keys.get(name);
		if (!state || state.workspaceId !== input.workspaceId) {
			state = { subject: input, workspaceId: input.workspaceId, windowStart: 0, remaining: 0, exhausted: false, limit: 0, quota: null, spent: 0, checkedAt: -Infinity, waiting: [], claiming: false };
			if (this.keys.size >= MAX_TRACKED_KEYS) this.keys.delete(this.keys.keys().next().value as string);
			this.keys.set(name, state);
		}
		const queued = state;
		return new Promise<void>((resolve, reject) => {
			queued.waiting.push({ resolve, reject });
			if (!queued.claiming) void this.serveWaiting(em, queued);
		});
	}

	/**
	 * One claim at a time per key, each sized to the requests then waiting; after each, waiting
	 * requests are granted in order while reserved requests last, and all refused once the window
	 * is used up. Requests arriving meanwhile join the queue and the next claim.
	 */
	private async serveWaiting(em: () => EntityManager, state: KeyState): Promise<void> {
		state.claiming = true;
		try {
			while (state.waiting.length > 0) {
				try {
					await this.claim(em(), state, Date.now(), state.waiting.length);
				} catch (error) {
					// The key was revoked, or the store failed: every request waiting on it learns so.
					for (const waiter of state.waiting.splice(0)) waiter.reject(error);
					return;
				}
				const now = Date.now();
				let decided = 0;
				for (; decided < state.waiting.length; decided++) {
					const verdict = this.take(state, now);
					if (verdict === "claim") break;
					if (verdict === "ok") state.waiting[decided].resolve();
					else state.waiting[decided].reject(verdict);
				}
				state.waiting.splice(0, decided);
			}
		} finally {
			state.claiming = false;
		}
	}

	/**
	 * A generation a person starts (MCP execute_assistant and run_playground) has no API key to
	 * rate-limit, but spends the workspace's money: refused once its monthly spend quota is reached,
	 * counting this process's spend not stored yet. One round trip per call: these are not the hot path.
	 */
	async admitWorkspaceSpend(em: EntityManager, workspaceId: string, now = new Date()): Promise<void> {
		const rows: { quota: string | null; spent: string | null }[] = await em.getConnection().execute(
			`select w.monthly_spend_quota_micro_usd as quota,
				(select s.cost_micro_usd from workspace_monthly_spend s where s.workspace = w.id and s.month = ?) as spent
			 from workspaces w where w.id = ?`,
			[monthOf(now), workspaceId],
		);
		const row = rows[0];
		if (!row) return;
		const quota = row.quota === null ? this.defaults.monthlySpendQuotaMicroUsd : Number(row.quota);
		if (quota !== null && Number(row.spent ?? 0) + (this.unstoredSpend.get(workspaceId) ?? 0) >= quota) {
			throw new AppError("COST_QUOTA_EXCEEDED", "The workspace's monthly spend quota is reached; raise it or wait for the next month");
		}
	}

	/** A generation of this process just ended with this cost: it counts at once, before it is stored. */
	addUnstoredSpend(workspaceId: string, costMicroUsd: number): void {
		if (costMicroUsd <= 0) return;
		this.unstoredSpend.set(workspaceId, (this.unstoredSpend.get(workspaceId) ?? 0) + costMicroUsd);
	}

	/**
	 * That cost is now in workspace_monthly_spend: it moves into the spend figure read from there
	 * (which may already include it, if read since: counted twice until the next re-read, which
	 * errs on the side of the quota).
	 */
	markSpendStored(workspaceId: string, costMicroUsd: number): void {
		if (costMicroUsd <= 0) return;
		const left = (this.unstoredSpend.get(workspaceId) ?? 0) - costMicroUsd;
		if (left > 0) this.unstoredSpend.set(workspaceId, left);
		else this.unstoredSpend.delete(workspaceId);
		for (const state of this.keys.values()) if (state.workspaceId === workspaceId) state.spent += costMicroUsd;
	}

	/**
	 * Adds `amount` requests to the current window of `subject` and returns the window's total and
	 * the seconds until it ends: exact counting, one round trip per call, in the same counters as API
	 * keys' (Redis when configured, falling back to rate_limit_windows), so the count holds across
	 * instances. For callers that are not on a hot path (the MCP control plane); the caller compares
	 * the total with its limit.
	 */
	async countRequests(em: EntityManager, subject: string, amount: number, now = Date.now()): Promise<{ total: number; retryAfterSeconds: number }> {
		const windowStart = windowStartOf(now);
		const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
		if (++this.countedSinceSweep >= SWEEP_EVERY_COUNTS) {
			this.countedSinceSweep = 0;
			deleteExpiredRateLimitWindows(em).catch(() => {
				// Only housekeeping: the next sweep, here or in the API pipeline, takes the same rows.
			});
		}
		if (this.counter) {
			try {
				return { total: await this.counter.windows.add(subject, windowStart, amount), retryAfterSeconds };
			} catch (error) {
				this.counter.onUnavailable(error);
			}
		}
		const [row]: { request_count: number }[] = await em.getConnection().execute(
			`insert into rate_limit_windows (subject, window_start, request_count) values (?, ?, ?)
			 on conflict (subject, window_start) do update set request_count = rate_limit_windows.request_count + excluded.request_count
			 returning request_count`,
			[subject, new Date(windowStart), amount],
		);
		return { total: row.request_count, retryAfterSeconds };
	}

	/** "ok" when this request may run, "claim" when a database round trip is needed, else the refusal. */
	private take(state: KeyState, now: number): "ok" | "claim" | AppError {
		if (state.quota !== null && state.spent + (this.unstoredSpend.get(state.workspaceId) ?? 0) >= state.quota) {
			return new AppError("COST_QUOTA_EXCEEDED", "The workspace's monthly spend quota is reached; raise it or wait for the next month");
		}
		if (state.limit <= 0) return now - state.checkedAt < REFRESH_MS ? "ok" : "claim";
		if (windowStartOf(now) !== state.windowStart || now - state.checkedAt >= REFRESH_MS) return "claim";
		if (state.remaining > 0) {
			state.remaining -= 1;
			return "ok";
		}
		return state.exhausted ? this.rateLimited(state, now) : "claim";
	}

	private rateLimited(state: KeyState, now: number): AppError {
		const retryAfterSeconds = Math.max(1, Math.ceil((windowStartOf(now) + WINDOW_MS - now) / 1000));
		return new AppError("RATE_LIMITED", `This API key is limited to ${state.limit} ${state.subject.budget} requests per minute`, {
			headers: { "Retry-After": String(retryAfterSeconds) },
		});
	}

	/**
	 * One round trip: re-reads the workspace's limits and spend (and that the key is live), and,
	 * if the key is limited and has fewer requests reserved in this window than `waiting`, claims
	 * claimSize(limit, the shortfall) (a second round trip, to Redis, when the counters live there).
	 */
	private async claim(em: EntityManager, state: KeyState, now: number, waiting: number): Promise<void> {
		const { apiKeyId } = state.subject;
		const subject = counterSubject(state.subject);
		const windowStart = windowStartOf(now);
		const sameWindow = state.windowStart === windowStart;
		// An exhausted key (nothing reserved) claims again: its limit may have been raised since.
		const wanted = sameWindow ? Math.max(0, waiting - state.remaining) : waiting;
		const needTokens = wanted > 0;
		const inRedis = needTokens && this.counter !== undefined;
		let row = await this.readAndClaim(em, apiKeyId, subject, state.workspaceId, windowStart, needTokens && !inRedis, Math.max(1, wanted));
		// The key is re-checked with every claim: never trusted from the cache alone for long.
		if (!row) {
			this.keys.delete(subject);
			throw invalidApiKeyError();
		}
		const limit = row.rate_limit_per_minute ?? this.defaults.rateLimitPerMinute;
		if (inRedis && limit > 0 && this.counter) {
			try {
				row = { ...row, claimed: await this.counter.windows.add(subject, windowStart, claimSize(limit, Math.max(1, wanted))) };
			} catch (error) {
				this.counter.onUnavailable(error);
				row = (await this.readAndClaim(em, apiKeyId, subject, state.workspaceId, windowStart, true, Math.max(1, wanted))) ?? row;
			}
		}
		state.limit = limit;
		// Knowledge requests spend nothing traced: a workspace past its spend quota still reads and manages its knowledge.
		if (state.subject.budget !== "runtime") state.quota = null;
		else state.quota = row.monthly_spend_quota_micro_usd === null ? this.defaults.monthlySpendQuotaMicroUsd : Number(row.monthly_spend_quota_micro_usd);
		state.spent = Number(row.spent ?? 0);
		state.checkedAt = Date.now();
		if (!sameWindow) {
			state.windowStart = windowStart;
			state.remaining = 0;
			state.exhausted = false;
		}
		if (row.claimed !== null) {
			// Our claim is the counter range (claimed - block, claimed]; the part within the limit is ours.
			const block = claimSize(state.limit, Math.max(1, wanted));
			const granted = Math.max(0, Math.min(block, state.limit - (row.claimed - block)));
			state.remaining += granted;
			state.exhausted = granted < block;
		}
	}

	/** The key's settings and spend, and with `claimTokens` claimSize(limit, wanted) requests claimed in rate_limit_windows, in one statement. */
	private async readAndClaim(
		em: EntityManager,
		apiKeyId: string,
		subject: string,
		workspaceId: string,
		windowStart: number,
		claimTokens: boolean,
		wanted: number,
	): Promise<Row | undefined> {
		const rows: Row[] = await em.getConnection().execute(
			`with settings as (
				select w.rate_limit_per_minute, w.monthly_spend_quota_micro_usd, coalesce(w.rate_limit_per_minute, ?) as effective_limit,
					(select s.cost_micro_usd from workspace_monthly_spend s where s.workspace = w.id and s.month = ?) as spent
				from workspaces w join api_keys k on k.workspace_id = w.id
				where w.id = ? and k.id = ? and k.revoked_at is null
			), claimed as (
				insert into rate_limit_windows (subject, window_start, request_count)
				select ?, ?, least(settings.effective_limit, greatest(least(${MAX_BLOCK}, greatest(1, settings.effective_limit / ${BLOCK_DIVISOR})), ?::int))
				from settings where settings.effective_limit > 0 and ?
				on conflict (subject, window_start) do update set request_count = rate_limit_windows.request_count + excluded.request_count
				returning request_count
			)
			select rate_limit_per_minute, monthly_spend_quota_micro_usd, spent, (select request_count from claimed) as claimed from settings`,
			[this.defaults.rateLimitPerMinute, monthOf(new Date(windowStart)), workspaceId, apiKeyId, subject, new Date(windowStart), wanted, claimTokens],
		);
		return rows[0];
	}
}

function windowStartOf(now: number): number {
	return Math.floor(now / WINDOW_MS) * WINDOW_MS;
}

/** Old windows are useless after a minute; deleting them now and then keeps the table small. */
export async function deleteExpiredRateLimitWindows(em: EntityManager, now = new Date()): Promise<void> {
	await em.getConnection().execute("delete from rate_limit_windows where window_start < ?", [new Date(now.getTime() - 5 * WINDOW_MS)]);
}
