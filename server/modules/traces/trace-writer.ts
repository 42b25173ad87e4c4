import type { OptionalProps } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { Trace } from "../../db/entities";
import { newId } from "../../shared/ids";
import { describePrincipal } from "../../shared/principal";
import type { Logger } from "../../shared/logger";
import type { GenerationOutcome } from "../runtime/run-generation";
import { costInMicroUsd } from "./model-prices";

const FLUSH_INTERVAL_MS = 200;
const FLUSH_SIZE = 100;
/** Past this, traces are dropped (and counted in the log) rather than growing memory without bound. */
const MAX_BUFFERED = 10_000;

/** A trace as the writer inserts it: every column, timestamps included. */
type PendingTrace = Omit<Trace, typeof OptionalProps>;

export function traceOf(outcome: GenerationOutcome): PendingTrace {
	const { input } = outcome;
	return {
		id: newId("trace"),
		workspace: input.origin.workspaceId,
		apiKey: input.origin.principal.kind === "api_key" ? input.origin.principal.apiKeyId : null,
		principalType: input.origin.principal.kind,
		principalId: describePrincipal(input.origin.principal).id,
		kind: input.origin.assistant ? "assistant" : "execute",
		streamed: outcome.streamed,
		assistant: input.origin.assistant?.assistantId ?? null,
		version: input.origin.assistant?.versionId ?? null,
		environment: input.origin.assistant?.environment ?? null,
		provider: input.providerName,
		model: input.model,
		input: { messages: input.messages, config: input.config },
		output: outcome.output,
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
	"id", "workspace", "api_key", "principal_type", "principal_id", "kind", "streamed", "assistant", "version", "environment", "provider", "model", "input", "output",
	"latency_ms", "time_to_first_token_ms", "input_tokens", "output_tokens", "total_tokens", "cost_micro_usd", "finish_reason",
	"error_code", "error_message", "created_at",
] as const;
const CONTENT_COLUMNS: ReadonlySet<string> = new Set(["input", "output"]);

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

/**
 * Traces are written off the response path: generations push into a buffer that is flushed in one
 * statement (INSERT_BATCH) every 200 ms or 100 traces, and once more on close.
 */
export class TraceWriter {
	private buffer: PendingTrace[] = [];
	private timer: NodeJS.Timeout | null = null;
	private flushing: Promise<void> = Promise.resolve();
	private dropped = 0;

	constructor(
		private readonly em: () => EntityManager,
		private readonly logger: Logger,
		/** Called after each successful flush with what it wrote: this process's spend reaches the quota check at once. */
		private readonly onFlushed: (traces: readonly PendingTrace[]) => void,
	) {}

	record(outcome: GenerationOutcome): void {
		if (this.buffer.length >= MAX_BUFFERED) {
			this.dropped += 1;
			return;
		}
		this.buffer.push(traceOf(outcome));
		if (this.buffer.length >= FLUSH_SIZE) void this.flush();
		else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
	}

	/** Flushes are serialised so traces land in order and close() waits for the last one. */
	flush(): Promise<void> {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		const batch = this.buffer;
		this.buffer = [];
		this.flushing = this.flushing.then(() => (batch.length > 0 ? this.write(batch) : undefined));
		return this.flushing;
	}

	private async write(batch: PendingTrace[]): Promise<void> {
		try {
			// knex's raw sends the binding as a pg parameter; em.execute would quote it in JavaScript.
			await this.em().getKnex().raw(INSERT_BATCH, [JSON.stringify(batch.map(rowOf))]);
			this.onFlushed(batch);
		} catch (error) {
			this.logger.error("traces not written", { count: batch.length, error });
		}
		if (this.dropped > 0) {
			this.logger.warn("traces dropped: buffer full", { count: this.dropped });
			this.dropped = 0;
		}
	}

	async close(): Promise<void> {
		await this.flush();
	}
}
