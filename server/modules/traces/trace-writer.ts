import type { OptionalProps } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Trace } from "../../db/entities";
import { describePrincipal } from "../../shared/principal";
import type { Logger } from "../../shared/logger";
import type { GenerationOutcome } from "../runtime/run-generation";
import { monthOf } from "../quotas/consume-request-quota";
import type { Observability } from "../../observability/observability";
import { costInMicroUsd, pricedModelOf } from "./model-prices";
import { isUnavailable } from "../../db/database-unavailable";

const FLUSH_INTERVAL_MS = 200;
const FLUSH_SIZE = 100;
/** Spend that could not be stored is tried again this often while nothing else flushes. */
const RETRY_SPEND_MS = 5_000;
/** Past this, traces are dropped (and counted in the log) rather than growing memory without bound. */
const MAX_BUFFERED = 10_000;

/** A trace as the writer inserts it: every column, timestamps included. */
type PendingTrace = Omit<Trace, typeof OptionalProps>;

export function traceOf(outcome: GenerationOutcome): PendingTrace {
	const { input } = outcome;
	return {
		id: outcome.traceId,
		workspace: input.origin.workspaceId,
		apiKey: input.origin.principal.kind === "api_key" ? input.origin.principal.apiKeyId : null,
		principalType: input.origin.principal.kind,
		principalId: describePrincipal(input.origin.principal).id,
		kind: input.origin.assistant ? "assistant" : input.origin.playground ? "playground" : "execute",
		streamed: outcome.streamed,
		assistant: input.origin.assistant?.assistantId ?? input.origin.playground?.assistantId ?? null,
		version: input.origin.assistant?.versionId ?? input.origin.playground?.versionId ?? null,
		environment: input.origin.assistant?.environment ?? null,
		provider: input.providerName,
		model: input.model,
		input: input.options ? { messages: input.messages, config: input.config, options: input.options } : { messages: input.messages, config: input.config },
		output: outcome.output,
		steps: outcome.steps ? outcome.steps.map((step) => (step.type === "model" ? { ...step, costMicroUsd: costInMicroUsd(input.model, step) } : step)) : null,
		latencyMs: Math.round(outcome.latencyMs),
		timeToFirstTokenMs: outcome.timeToFirstTokenMs === null ? null : Math.round(outcome.timeToFirstTokenMs),
		inputTokens: outcome.usage.inputTokens,
		outputTokens: outcome.usage.outputTokens,
		totalTokens: outcome.usage.totalTokens,
		costMicroUsd: costInMicroUsd(input.model, outcome.usage),
		finishReason: outcome.finishReason,
		errorCode: outcome.error?.code ?? null,
		errorMessage: outcome.error?.message ?? null,
		createdAt: new Date(outcome.startedAt),
	};
}

const COLUMNS = [
	"id", "workspace", "api_key", "principal_type", "principal_id", "kind", "streamed", "assistant", "version", "environment", "provider", "model", "input", "output", "steps",
	"latency_ms", "time_to_first_token_ms", "input_tokens", "output_tokens", "total_tokens", "cost_micro_usd", "finish_reason",
	"error_code", "error_message", "created_at",
] as const;
const CONTENT_COLUMNS: ReadonlySet<string> = new Set(["input", "output", "steps"]);

/**
 * One statement per batch, so it is atomic without a transaction: the batch arrives as a single
 * JSON parameter (one JSON.stringify instead of pg serialising 22 parameters per trace), content is
 * dropped for workspaces that switched it off (Workspace.storeTraceContent), and the batch's cost
 * is added to the monthly spend counters that the quota check reads rather than summing a month
 * of traces on every request. Months are UTC, as monthOf() counts them.
 */
const INSERT_BATCH = `
	with inserted as (
		insert into traces (${COLUMNS.join(", ")})
		select ${COLUMNS.map((column) => (CONTENT_COLUMNS.has(column) ? `case when w.store_trace_content = false then null else b.${column} end` : `b.${column}`)).join(", ")}
		from json_populate_recordset(null::traces, ?::json) b left join workspaces w on w.id = b.workspace
		returning workspace, cost_micro_usd, created_at
	)
	insert into workspace_monthly_spend (workspace, month, cost_micro_usd)
	select workspace, date_trunc('month', created_at at time zone 'UTC')::date, sum(cost_micro_usd) from inserted where cost_micro_usd > 0 group by 1, 2
	on conflict (workspace, month) do update set cost_micro_usd = workspace_monthly_spend.cost_micro_usd + excluded.cost_micro_usd`;

/** A trace as a row of the traces table, keyed by column name for json_populate_recordset. */
function rowOf(trace: PendingTrace): Record<(typeof COLUMNS)[number], unknown> {
	return {
		id: trace.id,
		workspace: trace.workspace,
		api_key: trace.apiKey,
		principal_type: trace.principalType,
		principal_id: trace.principalId,
		kind: trace.kind,
		streamed: trace.streamed,
		assistant: trace.assistant,
		version: trace.version,
		environment: trace.environment,
		provider: trace.provider,
		model: trace.model,
		input: trace.input,
		output: trace.output,
		steps: trace.steps,
		latency_ms: trace.latencyMs,
		time_to_first_token_ms: trace.timeToFirstTokenMs,
		input_tokens: trace.inputTokens,
		output_tokens: trace.outputTokens,
		total_tokens: trace.totalTokens,
		cost_micro_usd: trace.costMicroUsd,
		finish_reason: trace.finishReason,
		error_code: trace.errorCode,
		error_message: trace.errorMessage,
		created_at: trace.createdAt,
	};
}

/** The spend counters alone, for cost whose trace could not be written: the quota must hold regardless. */
const ADD_SPEND = `
	insert into workspace_monthly_spend (workspace, month, cost_micro_usd)
	select workspace, month, cost_micro_usd from json_populate_recordset(null::workspace_monthly_spend, ?::json)
	on conflict (workspace, month) do update set cost_micro_usd = workspace_monthly_spend.cost_micro_usd + excluded.cost_micro_usd`;

/** A PostgreSQL error code (SQLSTATE): the database answered and refused the statement. */
const SQLSTATE = /^[0-9A-Z]{5}$/;
/** Traces kept after the database did not answer are tried again this often. */
const RETRY_WRITE_MS = 1_000;

/** The monthly spend figure the quota reads; RequestQuotas (server/modules/quotas) keeps it. */
export interface SpendLedger {
	/** Cost traced in this process and not yet stored: counted against the quota from now on. */
	addUnstoredSpend(workspaceId: string, costMicroUsd: number): void;
	/** That cost is now in workspace_monthly_spend. */
	markSpendStored(workspaceId: string, costMicroUsd: number): void;
}

interface UnstoredSpend {
	workspace: string;
	/** `YYYY-MM-01`, UTC, as INSERT_BATCH counts months. */
	month: string;
	cost_micro_usd: number;
}

/**
 * Traces are written off the response path: generations push into a buffer that is flushed in one
 * statement (INSERT_BATCH) every 200 ms or 100 traces, and once more on close.
 *
 * One row the database refuses (text it cannot store that got past the contract and the provider
 * sanitizing, or anything else) must not cost other workspaces their traces or their spend: a
 * refused batch is written again row by row, and a row refused alone is logged with its id and its
 * cost still goes to the spend counters. Spend that could not be stored at all (database
 * unreachable) is kept and retried with each flush; until stored it counts against the quota in
 * this process (SpendLedger), from the moment the generation ends.
 */
export class TraceWriter {
	private buffer: PendingTrace[] = [];
	private timer: NodeJS.Timeout | null = null;
	private flushing: Promise<void> = Promise.resolve();
	private dropped = 0;
	private closed = false;
	/** Per workspace and month: cost not in workspace_monthly_spend yet, whose trace is not in the buffer. */
	private readonly unstoredSpend = new Map<string, UnstoredSpend>();

	constructor(
		private readonly em: () => EntityManager,
		private readonly logger: Logger,
		private readonly spend: SpendLedger,
		private readonly observability?: Observability,
	) {}

	private get metrics() {
		return this.observability?.metrics;
	}

	/** Traces buffered, not yet written (the metrics' trace_writer_backlog). */
	get backlog(): number {
		return this.buffer.length;
	}

	record(outcome: GenerationOutcome): void {
		const trace = traceOf(outcome);
		if (trace.costMicroUsd > 0) this.spend.addUnstoredSpend(trace.workspace, trace.costMicroUsd);
		this.metrics?.recordGeneration({
			provider: trace.provider,
			// Model names are the caller's text: only priced families become labels.
			model: pricedModelOf(trace.model) ?? "other",
			kind: trace.kind,
			streamed: trace.streamed,
			outcome: outcome.error ? outcome.error.kind : "success",
			latencySeconds: outcome.latencyMs / 1000,
			timeToFirstTokenSeconds: outcome.timeToFirstTokenMs === null ? null : outcome.timeToFirstTokenMs / 1000,
			inputTokens: trace.inputTokens,
			outputTokens: trace.outputTokens,
			costMicroUsd: trace.costMicroUsd,
		});
		this.metrics?.recordProviderAttempts(trace.provider, outcome.attempts);
		outcome.tracing?.end({
			traceId: trace.id,
			provider: trace.provider,
			model: trace.model,
			kind: trace.kind,
			streamed: trace.streamed,
			startedAt: outcome.startedAt,
			latencyMs: outcome.latencyMs,
			inputTokens: trace.inputTokens,
			outputTokens: trace.outputTokens,
			finishReason: trace.finishReason,
			errorKind: outcome.error?.kind ?? null,
			attempts: outcome.attempts,
		});
		if (this.buffer.length >= MAX_BUFFERED) {
			// The trace is dropped; its cost is not.
			this.dropped += 1;
			this.metrics?.recordTracesDropped(1);
			this.keepUnstoredSpend(trace);
			this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
			return;
		}
		this.buffer.push(trace);
		if (this.buffer.length >= FLUSH_SIZE) void this.flush();
		else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
	}

	/**
	 * Resolves once a trace this process recorded is in the database, writing it now if it is still
	 * buffered (at once for a trace it never held): an answer names its trace before the batch holding
	 * it is written, and a reader asking for it at once must find it.
	 */
	written(traceId: string): Promise<void> {
		if (this.buffer.some((trace) => trace.id === traceId)) return this.flush();
		return this.flushing;
	}

	/** Flushes are serialised so traces land in order and close() waits for the last one. */
	flush(): Promise<void> {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		const batch = this.buffer;
		this.buffer = [];
		this.flushing = this.flushing.then(() => this.write(batch));
		return this.flushing;
	}

	private async write(batch: PendingTrace[]): Promise<void> {
		if (batch.length > 0) {
			try {
				await this.insert(batch);
			} catch (error) {
				if (!SQLSTATE.test(String((error as { code?: unknown }).code)) || isUnavailable(error)) {
					// Not a refusal (the database is unreachable or restarting): the rows would fail alike one
					// by one. They go back to the front of the buffer and are written once it answers again, so
					// no answered generation loses its trace to a database restart (past the buffer's bound the
					// oldest are dropped, counted, their cost kept).
					this.logger.error("traces not written yet; kept to write again", { count: batch.length, error });
					this.requeue(batch);
				} else {
					this.logger.warn("trace batch refused; writing its rows one by one", { count: batch.length, error });
					await this.insertOneByOne(batch);
				}
			}
		}
		if (this.unstoredSpend.size > 0) await this.storeUnstoredSpend();
		if (this.dropped > 0) {
			this.logger.warn("traces dropped: buffer full (their cost is still counted)", { count: this.dropped });
			this.dropped = 0;
		}
	}

	/** One statement: the traces and their cost in the spend counters. */
	private async insert(traces: PendingTrace[]): Promise<void> {
		// knex's raw sends the binding as a pg parameter; em.execute would quote it in JavaScript.
		await this.em().getKnex().raw(INSERT_BATCH, [JSON.stringify(traces.map(rowOf))]);
		for (const trace of traces) if (trace.costMicroUsd > 0) this.spend.markSpendStored(trace.workspace, trace.costMicroUsd);
	}

	private async insertOneByOne(batch: PendingTrace[]): Promise<void> {
		for (const trace of batch) {
			try {
				await this.insert([trace]);
			} catch (error) {
				this.logger.error("trace not written; its cost is still counted", { traceId: trace.id, workspaceId: trace.workspace, error });
				this.keepUnstoredSpend(trace);
			}
		}
	}

	private requeue(batch: PendingTrace[]): void {
		const kept = [...batch, ...this.buffer];
		const overflow = kept.length - MAX_BUFFERED;
		if (overflow > 0) {
			for (const trace of kept.splice(0, overflow)) this.keepUnstoredSpend(trace);
			this.dropped += overflow;
			this.metrics?.recordTracesDropped(overflow);
		}
		this.buffer = kept;
		if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), RETRY_WRITE_MS);
	}

	private keepUnstoredSpend(trace: PendingTrace): void {
		if (trace.costMicroUsd <= 0) return;
		const month = monthOf(trace.createdAt);
		const key = `${trace.workspace}\n${month}`;
		const entry = this.unstoredSpend.get(key) ?? { workspace: trace.workspace, month, cost_micro_usd: 0 };
		entry.cost_micro_usd += trace.costMicroUsd;
		this.unstoredSpend.set(key, entry);
	}

	private async storeUnstoredSpend(): Promise<void> {
		const entries = [...this.unstoredSpend.values()];
		this.unstoredSpend.clear();
		try {
			await this.em().getKnex().raw(ADD_SPEND, [JSON.stringify(entries)]);
			for (const entry of entries) this.spend.markSpendStored(entry.workspace, entry.cost_micro_usd);
		} catch (error) {
			this.logger.error("spend not stored yet; retried with the next flush", { workspaces: entries.length, error });
			for (const entry of entries) {
				const key = `${entry.workspace}\n${entry.month}`;
				const newer = this.unstoredSpend.get(key);
				this.unstoredSpend.set(key, newer ? { ...entry, cost_micro_usd: entry.cost_micro_usd + newer.cost_micro_usd } : entry);
			}
			if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), RETRY_SPEND_MS);
		}
	}

	async close(): Promise<void> {
		this.closed = true;
		await this.flush();
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		if (this.unstoredSpend.size > 0) this.logger.error("spend not stored at shutdown", { spend: [...this.unstoredSpend.values()] });
	}
}
