import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * Every Prometheus series this process exposes, on a registry of its own (two platforms in one
 * process never share a counter). Callers use the typed recorders below, never prom-client: its
 * names and labels live in this one file. Labels are bounded by construction: route templates,
 * provider names, failure kinds, tool names from the catalog and priced model families, never a
 * raw path, an id, a key or a model name a tenant typed (those are `other`).
 */

/** Seconds, from sub-millisecond answers to minutes-long generations. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** The trace's kind (traces.kind). */
export type GenerationKind = string;
export type RefusalKind = "rate_limit" | "spend_quota" | "mcp_rate_limit";

export interface GenerationMeasurement {
	provider: string;
	/** A priced model family (model-prices.ts) or `other`: model names are tenant input. */
	model: string;
	kind: GenerationKind;
	streamed: boolean;
	/** `success`, or the provider failure's kind (rate_limited, timeout, …). */
	outcome: string;
	latencySeconds: number;
	timeToFirstTokenSeconds: number | null;
	inputTokens: number;
	outputTokens: number;
	costMicroUsd: number;
}

/** Gauges read at scrape time from the services that own the figure (no polling, nothing kept here). */
export interface MetricsSources {
	/** Traces buffered, not yet written. */
	traceBacklog?: () => number;
	/** Ingestion jobs waiting (queued or retrying). */
	ingestionQueueDepth?: () => Promise<number>;
	/** Database connections in use, idle, and callers waiting for one. */
	databasePool?: () => { used: number; free: number; pending: number };
}

export class PlatformMetrics {
	readonly registry = new Registry();
	private readonly sources: MetricsSources = {};

	private readonly httpRequests = new Counter({ name: "http_requests_total", help: "HTTP requests answered, by route template, method and status", labelNames: ["route", "method", "status"], registers: [this.registry] });
	private readonly httpDuration = new Histogram({ name: "http_request_duration_seconds", help: "Time to answer an HTTP request (to the last byte)", labelNames: ["route", "method"], buckets: LATENCY_BUCKETS, registers: [this.registry] });

	private readonly generations = new Counter({ name: "generations_total", help: "Generations by provider, model family, kind, plain or streamed, and outcome", labelNames: ["provider", "model", "kind", "mode", "outcome"], registers: [this.registry] });
	private readonly generationDuration = new Histogram({ name: "generation_duration_seconds", help: "Generation latency, retries included", labelNames: ["provider", "model", "kind", "mode"], buckets: LATENCY_BUCKETS, registers: [this.registry] });
	private readonly timeToFirstToken = new Histogram({ name: "generation_time_to_first_token_seconds", help: "Time to the first token", labelNames: ["provider", "model", "mode"], buckets: LATENCY_BUCKETS, registers: [this.registry] });
	private readonly generationTokens = new Counter({ name: "generation_tokens_total", help: "Tokens by provider, model family and direction", labelNames: ["provider", "model", "direction"], registers: [this.registry] });
	private readonly generationCost = new Counter({ name: "generation_cost_micro_usd_total", help: "Cost of generations in micro-USD (list prices)", labelNames: ["provider", "model"], registers: [this.registry] });
	private readonly providerAttempts = new Counter({ name: "provider_attempts_total", help: "Provider calls made, retries included", labelNames: ["provider"], registers: [this.registry] });

	private readonly toolCalls = new Counter({ name: "assistant_tool_calls_total", help: "Tool calls made by assistants during generations", labelNames: ["tool_kind", "outcome"], registers: [this.registry] });
	private readonly mcpToolCalls = new Counter({ name: "mcp_tool_calls_total", help: "MCP tools/call requests by tool and outcome", labelNames: ["tool", "outcome"], registers: [this.registry] });
	private readonly mcpToolDuration = new Histogram({ name: "mcp_tool_call_duration_seconds", help: "MCP tool call duration", labelNames: ["tool"], buckets: LATENCY_BUCKETS, registers: [this.registry] });

	private readonly ingestedDocuments = new Counter({ name: "knowledge_documents_ingested_total", help: "Ingestion jobs finished, by outcome (ready, failed, retried)", labelNames: ["outcome"], registers: [this.registry] });
	private readonly ingestionDuration = new Histogram({ name: "knowledge_ingestion_duration_seconds", help: "Ingestion of one document: parse, chunk, embed, index", buckets: LATENCY_BUCKETS, registers: [this.registry] });
	private readonly searches = new Counter({ name: "knowledge_searches_total", help: "Knowledge searches (API, MCP, assistants' attached knowledge)", registers: [this.registry] });
	private readonly searchDuration = new Histogram({ name: "knowledge_search_duration_seconds", help: "Knowledge search latency", buckets: LATENCY_BUCKETS, registers: [this.registry] });

	private readonly evaluationRuns = new Counter({ name: "evaluation_runs_total", help: "Evaluation runs finished, by status", labelNames: ["status"], registers: [this.registry] });
	private readonly evaluationCases = new Counter({ name: "evaluation_cases_total", help: "Evaluation cases scored, by outcome (passed, failed, errored)", labelNames: ["outcome"], registers: [this.registry] });

	private readonly refusals = new Counter({ name: "quota_refusals_total", help: "Requests refused by a rate limit or the spend quota, by kind", labelNames: ["kind"], registers: [this.registry] });
	private readonly tracesDropped = new Counter({ name: "traces_dropped_total", help: "Traces dropped because the writer's buffer was full", registers: [this.registry] });

	private readonly eventLoopDelay: IntervalHistogram;

	constructor() {
		const sources = this.sources;
		new Gauge({
			name: "trace_writer_backlog",
			help: "Traces buffered in this process, not yet written",
			registers: [this.registry],
			collect() {
				if (sources.traceBacklog) this.set(sources.traceBacklog());
			},
		});
		new Gauge({
			name: "knowledge_ingestion_queue_depth",
			help: "Ingestion jobs waiting to run (all processes)",
			registers: [this.registry],
			async collect() {
				if (sources.ingestionQueueDepth) this.set(await sources.ingestionQueueDepth().catch(() => Number.NaN));
			},
		});
		new Gauge({
			name: "database_pool_connections",
			help: "Database pool: connections in use, idle, and callers waiting for one",
			labelNames: ["state"],
			registers: [this.registry],
			collect() {
				if (!sources.databasePool) return;
				const pool = sources.databasePool();
				this.set({ state: "used" }, pool.used);
				this.set({ state: "free" }, pool.free);
				this.set({ state: "pending" }, pool.pending);
			},
		});
		// The process's own series, read at scrape time only. Not prom-client's collectDefaultMetrics: its
		// garbage-collection observer runs a callback per collection, which bench:runtime measured at
		// about half of these metrics' cost per request.
		const lag = monitorEventLoopDelay({ resolution: 10 });
		lag.enable();
		this.eventLoopDelay = lag;
		const seconds = (nanoseconds: number) => (Number.isFinite(nanoseconds) ? nanoseconds / 1e9 : 0);
		const gauge = (name: string, help: string, read: () => number) =>
			new Gauge({
				name,
				help,
				registers: [this.registry],
				collect() {
					this.set(read());
				},
			});
		gauge("nodejs_eventloop_lag_p99_seconds", "Event-loop delay, 99th percentile since the last scrape", () => seconds(lag.percentile(99)));
		gauge("nodejs_eventloop_lag_mean_seconds", "Event-loop delay, mean since the last scrape", () => seconds(lag.mean));
		gauge("nodejs_eventloop_lag_max_seconds", "Event-loop delay, maximum since the last scrape (read last: the window restarts)", () => {
			const max = seconds(lag.max);
			lag.reset();
			return max;
		});
		gauge("process_resident_memory_bytes", "Resident memory", () => process.memoryUsage.rss());
		gauge("nodejs_heap_size_used_bytes", "V8 heap in use", () => process.memoryUsage().heapUsed);
		gauge("nodejs_active_resources", "Handles and requests keeping the event loop alive (sockets, timers, files)", () => process.getActiveResourcesInfo().length);
		gauge("process_cpu_seconds_total", "CPU time used by the process, user and system", () => {
			const usage = process.cpuUsage();
			return (usage.user + usage.system) / 1e6;
		});
	}

	/** Connects the gauges read at scrape time to the services that own their figures. */
	observe(sources: MetricsSources): void {
		Object.assign(this.sources, sources);
	}

	/**
	 * The hot path's series, looked up once per label set: prom-client hashes a labels object on every
	 * call, which cost a measurable share of a request's CPU in bench:runtime. Bounded, as the labels are.
	 */
	private readonly httpSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<string> }>();
	private readonly generationSeries = new Map<
		string,
		{ count: Counter.Internal; duration: Histogram.Internal<string>; firstToken: Histogram.Internal<string>; input: Counter.Internal; output: Counter.Internal; cost: Counter.Internal }
	>();

	recordHttpRequest(route: string, method: string, status: number, seconds: number): void {
		const key = `${route} ${method} ${status}`;
		let series = this.httpSeries.get(key);
		if (!series) {
			series = { count: this.httpRequests.labels({ route, method, status: String(status) }), duration: this.httpDuration.labels({ route, method }) };
			this.httpSeries.set(key, series);
		}
		series.count.inc();
		series.duration.observe(seconds);
	}

	recordGeneration(measurement: GenerationMeasurement): void {
		const { provider, model, kind, outcome } = measurement;
		const mode = measurement.streamed ? "stream" : "plain";
		const key = `${provider} ${model} ${kind} ${mode} ${outcome}`;
		let series = this.generationSeries.get(key);
		if (!series) {
			series = {
				count: this.generations.labels({ provider, model, kind, mode, outcome }),
				duration: this.generationDuration.labels({ provider, model, kind, mode }),
				firstToken: this.timeToFirstToken.labels({ provider, model, mode }),
				input: this.generationTokens.labels({ provider, model, direction: "input" }),
				output: this.generationTokens.labels({ provider, model, direction: "output" }),
				cost: this.generationCost.labels({ provider, model }),
			};
			this.generationSeries.set(key, series);
		}
		series.count.inc();
		series.duration.observe(measurement.latencySeconds);
		if (measurement.timeToFirstTokenSeconds !== null) series.firstToken.observe(measurement.timeToFirstTokenSeconds);
		if (measurement.inputTokens > 0) series.input.inc(measurement.inputTokens);
		if (measurement.outputTokens > 0) series.output.inc(measurement.outputTokens);
		if (measurement.costMicroUsd > 0) series.cost.inc(measurement.costMicroUsd);
	}

	recordProviderAttempts(provider: string, attempts: number): void {
		if (attempts > 0) this.providerAttempts.inc({ provider }, attempts);
	}

	/** An assistant's tool call inside a generation: `tool_kind` is the tool's kind (knowledge_search, http, mcp), never its name. */
	recordToolCall(toolKind: string, outcome: "success" | "failure"): void {
		this.toolCalls.inc({ tool_kind: toolKind, outcome });
	}

	/** `tool` must be a name from the tool catalog, or `unknown`. */
	recordMcpToolCall(tool: string, outcome: string, seconds: number): void {
		this.mcpToolCalls.inc({ tool, outcome });
		this.mcpToolDuration.observe({ tool }, seconds);
	}

	recordIngestion(outcome: "ready" | "failed" | "retried", seconds: number): void {
		this.ingestedDocuments.inc({ outcome });
		this.ingestionDuration.observe(seconds);
	}

	recordSearch(seconds: number): void {
		this.searches.inc();
		this.searchDuration.observe(seconds);
	}

	recordEvaluationRun(status: string): void {
		this.evaluationRuns.inc({ status });
	}

	recordEvaluationCase(outcome: "passed" | "failed" | "errored"): void {
		this.evaluationCases.inc({ outcome });
	}

	recordRefusal(kind: RefusalKind): void {
		this.refusals.inc({ kind });
	}

	recordTracesDropped(count: number): void {
		this.tracesDropped.inc(count);
	}

	/** Stops sampling the event loop's delay. */
	close(): void {
		this.eventLoopDelay.disable();
	}

	/** The text exposition format, and its content type. */
	async expose(): Promise<{ contentType: string; body: string }> {
		return { contentType: this.registry.contentType, body: await this.registry.metrics() };
	}
}
