import type { OptionalProps } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { type RawConnection, rawConnection } from "../../db/raw-connection";
import type { Trace } from "../../db/entities";
import { newId } from "../../shared/ids";
import type { Logger } from "../../shared/logger";
import type { GenerationOutcome } from "../runtime/run-generation";
import { monthOf } from "../quotas/consume-request-quota";
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
		apiKey: input.origin.apiKeyId,
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

/** The quota check reads these counters rather than summing a month of traces on every request. */
async function addToMonthlySpend(connection: RawConnection, batch: PendingTrace[]): Promise<void> {
	const totals = new Map<string, { workspace: string; month: string; cost: number }>();
	for (const trace of batch) {
		if (trace.costMicroUsd <= 0) continue;
		const month = monthOf(trace.createdAt);
		const key = `${trace.workspace}|${month}`;
		const total = totals.get(key) ?? { workspace: trace.workspace, month, cost: 0 };
		total.cost += trace.costMicroUsd;
		totals.set(key, total);
	}
	if (totals.size === 0) return;
	const rows = [...totals.values()];
	await connection.query(
		`insert into workspace_monthly_spend (workspace, month, cost_micro_usd) values ${rows.map((_, index) => `($${index * 3 + 1}, $${index * 3 + 2}, $${index * 3 + 3})`).join(",")}
		 on conflict (workspace, month) do update set cost_micro_usd = workspace_monthly_spend.cost_micro_usd + excluded.cost_micro_usd`,
		rows.flatMap((row) => [row.workspace, row.month, row.cost]),
	);
}

const COLUMNS = [
	"id", "workspace", "api_key", "kind", "streamed", "assistant", "version", "environment", "provider", "model", "input", "output",
	"latency_ms", "time_to_first_token_ms", "input_tokens", "output_tokens", "total_tokens", "cost_micro_usd", "finish_reason",
	"error_code", "error_message", "created_at",
];

/**
 * Traces are written off the response path: generations push into a buffer that is flushed in one
 * multi-row insert every 200 ms or 100 traces, and once more on close. Each flush also adds the
 * batch's cost to the workspace's monthly spend counter that the quota check reads.
 */
export class TraceWriter {
	private buffer: PendingTrace[] = [];
	private timer: NodeJS.Timeout | null = null;
	private flushing: Promise<void> = Promise.resolve();
	private dropped = 0;
	/** Called after each successful flush with what it wrote (quota bookkeeping, tests). */
	onFlushed?: (traces: readonly PendingTrace[]) => void;

	constructor(
		private readonly em: () => EntityManager,
		private readonly logger: Logger,
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
			// pg's own $n parameters: em.execute's `?` interpolation quoted every one of the batch's
			// 2,200 values in JavaScript. One transaction: a batch's traces and its spend land together.
			await this.em().transactional(async (tx) => this.insert(await rawConnection(tx), batch));
			this.onFlushed?.(batch);
		} catch (error) {
			this.logger.error("traces not written", { count: batch.length, error });
		}
		if (this.dropped > 0) {
			this.logger.warn("traces dropped: buffer full", { count: this.dropped });
			this.dropped = 0;
		}
	}

	private async insert(connection: RawConnection, batch: PendingTrace[]): Promise<void> {
		// Workspaces that switched content storage off keep metadata only (Workspace.storeTraceContent).
		const workspaceIds = [...new Set(batch.map((trace) => trace.workspace))];
		const { rows } = await connection.query<{ id: string }>("select id from workspaces where id = any($1) and store_trace_content = false", [workspaceIds]);
		const withoutContent = new Set(rows.map((row) => row.id));
		const values: unknown[] = [];
		for (const trace of batch) {
			const keep = !withoutContent.has(trace.workspace);
			values.push(
				trace.id, trace.workspace, trace.apiKey, trace.kind, trace.streamed, trace.assistant, trace.version, trace.environment,
				trace.provider, trace.model, keep ? JSON.stringify(trace.input) : null, keep ? trace.output : null, trace.latencyMs,
				trace.timeToFirstTokenMs, trace.inputTokens, trace.outputTokens, trace.totalTokens, trace.costMicroUsd, trace.finishReason,
				trace.errorCode, trace.errorMessage, trace.createdAt,
			);
		}
		const placeholders = batch.map((_, row) => `(${COLUMNS.map((_, column) => `$${row * COLUMNS.length + column + 1}`).join(",")})`).join(",");
		await connection.query(`insert into traces (${COLUMNS.join(",")}) values ${placeholders}`, values);
		await addToMonthlySpend(connection, batch);
	}

	async close(): Promise<void> {
		await this.flush();
	}
}
