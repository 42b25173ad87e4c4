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

type Labels = Record<string, string>;

/**
 * The request path's series are plain numbers: a counter's total, a histogram's count per bucket.
 * prom-client's own `inc`/`observe` validate and hash the labels on every call, even through a
 * `.labels()` child, which bench:runtime measured at most of these metrics' cost per request; here
 * a request adds to numbers, and prom-client reads them when scraped (each metric's `collect`).
 * A series is exposed once it has counted something, as prom-client's would be.
 */
class CounterSeries {
	value = 0;
	constructor(readonly labels: Labels) {}
}

class HistogramSeries {
	/** Observations per bucket, not cumulative; above the last bound, only `count` moves (+Inf). */
	readonly buckets = new Array<number>(LATENCY_BUCKETS.length).fill(0);
	sum = 0;
	count = 0;
	constructor(readonly labels: Labels) {}

	observe(seconds: number): void {
		if (!Number.isFinite(seconds)) return;
		let index = 0;
		while (index < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[index]) index += 1;
		if (index < LATENCY_BUCKETS.length) this.buckets[index] += 1;
		this.sum += seconds;
		this.count += 1;
	}
}

/** The series of one family, each made once per label set (the key is the label values, joined). */
class SeriesFamily<S extends CounterSeries | HistogramSeries> {
	readonly series = new Map<string, S>();
	constructor(private readonly create: (labels: Labels) => S) {}

	of(key: string, labels: Labels): S {
		let series = this.series.get(key);
		if (!series) {
			series = this.create(labels);
			this.series.set(key, series);
		}
		return series;
	}
}

/** A prom-client counter whose values are a family's totals, read at scrape time. */
function countersOf(registry: Registry, config: { name: string; help: string; labelNames: string[] }): SeriesFamily<CounterSeries> {
	const family = new SeriesFamily((labels) => new CounterSeries(labels));
	new Counter({
		...config,
		registers: [registry],
		collect() {
			this.reset();
			for (const series of family.series.values()) if (series.value > 0) this.inc(series.labels, series.value);
		},
	});
	return family;
}

/**
 * A prom-client histogram whose values are a family's, read at scrape time. prom-client has no call
 * that sets a histogram's buckets, so `collect` gives it the state its `observe` would have built
 * (test/operations/metrics.test.ts reads the exposition it makes from it).
 */
function histogramsOf(registry: Registry, config: { name: string; help: string; labelNames: string[] }): SeriesFamily<HistogramSeries> {
	const family = new SeriesFamily((labels) => new HistogramSeries(labels));
	new Histogram({
		...config,
		buckets: LATENCY_BUCKETS,
		registers: [registry],
		collect() {
			const hashMap: Record<string, { labels: Labels; bucketValues: Record<number, number>; sum: number; count: number }> = {};
			for (const [key, series] of family.series) {
				if (series.count === 0) continue;
				const bucketValues: Record<number, number> = {};
				LATENCY_BUCKETS.forEach((bound, index) => {
					bucketValues[bound] = series.buckets[index];
				});
				hashMap[key] = { labels: series.labels, bucketValues, sum: series.sum, count: series.count };
			}
			(this as unknown as { hashMap: typeof hashMap }).hashMap = hashMap;
		},
	});
	return family;
}

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
	/** Index-builder tasks (search structures' builds, folds and files, builtin embedding) running and waiting in this process. */
	indexBuilderTasks?: () => { running: number; queued: number };
}

export class PlatformMetrics {
	readonly registry = new Registry();
	private readonly sources: MetricsSources = {};

	private readonly httpRequests = countersOf(this.registry, { name: "http_requests_total", help: "HTTP requests answered, by route template, method and status", labelNames: ["route", "method", "status"] });
	private readonly httpDuration = histogramsOf(this.registry, { name: "http_request_duration_seconds", help: "Time to answer an HTTP request (to the last byte)", labelNames: ["route", "method"] });

	private readonly generations = countersOf(this.registry, { name: "generations_total", help: "Generations by provider, model family, kind, plain or streamed, and outcome", labelNames: ["provider", "model", "kind", "mode", "outcome"] });
	private readonly generationDuration = histogramsOf(this.registry, { name: "generation_duration_seconds", help: "Generation latency, retries included", labelNames: ["provider", "model", "kind", "mode"] });
	private readonly timeToFirstToken = histogramsOf(this.registry, { name: "generation_time_to_first_token_seconds", help: "Time to the first token", labelNames: ["provider", "model", "mode"] });
	private readonly generationTokens = countersOf(this.registry, { name: "generation_tokens_total", help: "Tokens by provider, model family and direction", labelNames: ["provider", "model", "direction"] });
	private readonly generationCost = countersOf(this.registry, { name: "generation_cost_micro_usd_total", help: "Cost of generations in micro-USD (list prices)", labelNames: ["provider", "model"] });
	private readonly providerAttempts = countersOf(this.registry, { name: "provider_attempts_total", help: "Provider calls made, retries included", labelNames: ["provider"] });

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

	/** False: nothing is recorded (no METRICS_PORT, no METRICS_TOKEN: no one could read it). */
	readonly recording: boolean;

	constructor({ recording }: { recording: boolean } = { recording: true }) {
		this.recording = recording;
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
		new Gauge({
			name: "knowledge_index_builder_tasks",
			help: "Index-builder tasks (search index builds, folds and files, builtin embedding) running and queued in this process",
			labelNames: ["state"],
			registers: [this.registry],
			collect() {
				if (!sources.indexBuilderTasks) return;
				const { running, queued } = sources.indexBuilderTasks();
				this.set({ state: "running" }, running);
				this.set({ state: "queued" }, queued);
			},
		});
		// The process's own series, read at scrape time only. Not prom-client's collectDefaultMetrics: its
		// garbage-collection observer runs a callback per collection, which bench:runtime measured at
		// about half of these metrics' cost per request.
		const lag = monitorEventLoopDelay({ resolution: 10 });
		if (recording) lag.enable();
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

	/** Per route template, method and status: the HTTP series, so a request joins no strings to find them. */
	private readonly httpSeries = new Map<string, Map<string, Map<number, { count: CounterSeries; duration: HistogramSeries }>>>();
	/** Per label set of generations_total: every series one generation moves. */
	private readonly generationSeries = new Map<
		string,
		{ count: CounterSeries; duration: HistogramSeries; firstToken: HistogramSeries; input: CounterSeries; output: CounterSeries; cost: CounterSeries }
	>();

	recordHttpRequest(route: string, method: string, status: number, seconds: number): void {
		if (!this.recording) return;
		let byMethod = this.httpSeries.get(route);
		if (!byMethod) {
			byMethod = new Map();
			this.httpSeries.set(route, byMethod);
		}
		let byStatus = byMethod.get(method);
		if (!byStatus) {
			byStatus = new Map();
			byMethod.set(method, byStatus);
		}
		let series = byStatus.get(status);
		if (!series) {
			series = {
				count: this.httpRequests.of(`${route} ${method} ${status}`, { route, method, status: String(status) }),
				duration: this.httpDuration.of(`${route} ${method}`, { route, method }),
			};
			byStatus.set(status, series);
		}
		series.count.value += 1;
		series.duration.observe(seconds);
	}

	recordGeneration(measurement: GenerationMeasurement): void {
		if (!this.recording) return;
		const { provider, model, kind, outcome } = measurement;
		const mode = measurement.streamed ? "stream" : "plain";
		const key = `${provider} ${model} ${kind} ${mode} ${outcome}`;
		let series = this.generationSeries.get(key);
		if (!series) {
			series = {
				count: this.generations.of(key, { provider, model, kind, mode, outcome }),
				duration: this.generationDuration.of(`${provider} ${model} ${kind} ${mode}`, { provider, model, kind, mode }),
				firstToken: this.timeToFirstToken.of(`${provider} ${model} ${mode}`, { provider, model, mode }),
				input: this.generationTokens.of(`${provider} ${model} input`, { provider, model, direction: "input" }),
				output: this.generationTokens.of(`${provider} ${model} output`, { provider, model, direction: "output" }),
				cost: this.generationCost.of(`${provider} ${model}`, { provider, model }),
			};
			this.generationSeries.set(key, series);
		}
		series.count.value += 1;
		series.duration.observe(measurement.latencySeconds);
		if (measurement.timeToFirstTokenSeconds !== null) series.firstToken.observe(measurement.timeToFirstTokenSeconds);
		if (measurement.inputTokens > 0) series.input.value += measurement.inputTokens;
		if (measurement.outputTokens > 0) series.output.value += measurement.outputTokens;
		if (measurement.costMicroUsd > 0) series.cost.value += measurement.costMicroUsd;
	}

	recordProviderAttempts(provider: string, attempts: number): void {
		if (!this.recording) return;
		if (attempts > 0) this.providerAttempts.of(provider, { provider }).value += attempts;
	}

	/** An assistant's tool call inside a generation: `tool_kind` is the tool's kind (knowledge_search, http, mcp), never its name. */
	recordToolCall(toolKind: string, outcome: "success" | "failure"): void {
		if (!this.recording) return;
		this.toolCalls.inc({ tool_kind: toolKind, outcome });
	}

	/** `tool` must be a name from the tool catalog, or `unknown`. */
	recordMcpToolCall(tool: string, outcome: string, seconds: number): void {
		if (!this.recording) return;
		this.mcpToolCalls.inc({ tool, outcome });
		this.mcpToolDuration.observe({ tool }, seconds);
	}

	recordIngestion(outcome: "ready" | "failed" | "retried", seconds: number): void {
		if (!this.recording) return;
		this.ingestedDocuments.inc({ outcome });
		this.ingestionDuration.observe(seconds);
	}

	recordSearch(seconds: number): void {
		if (!this.recording) return;
		this.searches.inc();
		this.searchDuration.observe(seconds);
	}

	recordEvaluationRun(status: string): void {
		if (!this.recording) return;
		this.evaluationRuns.inc({ status });
	}

	recordEvaluationCase(outcome: "passed" | "failed" | "errored"): void {
		if (!this.recording) return;
		this.evaluationCases.inc({ outcome });
	}

	recordRefusal(kind: RefusalKind): void {
		if (!this.recording) return;
		this.refusals.inc({ kind });
	}

	recordTracesDropped(count: number): void {
		if (!this.recording) return;
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
