import { PlatformMetrics } from "./metrics";
import type { Tracing, TracingOptions } from "./tracing-types";

/** METRICS_PORT, METRICS_TOKEN, ACCESS_LOG (server/config.ts). */
export interface ObservabilityOptions {
	/** A listener of its own for GET /metrics; unset: none. */
	metricsPort?: number;
	/** GET /metrics on the API's listener, for `Authorization: Bearer <token>` only; unset: not served there. */
	metricsToken?: string;
	/** One JSON line per request at `info`. */
	accessLog: boolean;
	/** OpenTelemetry export (OTEL_EXPORTER_OTLP_ENDPOINT…); unset: no exporter, nothing of OpenTelemetry loaded. */
	tracing?: TracingOptions;
}

export const DEFAULT_OBSERVABILITY_OPTIONS: ObservabilityOptions = { accessLog: true };

/**
 * What a process tells its operators about itself, one per platform: metrics (recorded from the
 * request pipeline, the trace writer, the MCP tool wrapper, the jobs), the access-log switch, and
 * whether it is draining (readiness answers 503 from the moment shutdown starts).
 */
export class Observability {
	readonly metrics: PlatformMetrics;
	private drainingSince: number | null = null;

	private constructor(
		readonly options: ObservabilityOptions,
		/** Null unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then spans per request and generation. */
		readonly tracing: Tracing | null,
	) {
		// Neither METRICS_PORT nor METRICS_TOKEN: no one can read them, so none are recorded (nothing per request).
		this.metrics = new PlatformMetrics({ recording: options.metricsPort !== undefined || options.metricsToken !== undefined });
	}

	/** The OpenTelemetry packages are imported only when an endpoint is configured. */
	static async create(options: ObservabilityOptions): Promise<Observability> {
		const tracing = options.tracing ? (await import("./tracing")).startTracing(options.tracing) : null;
		return new Observability(options, tracing);
	}

	get draining(): boolean {
		return this.drainingSince !== null;
	}

	/** Shutdown started: readiness fails so load balancers stop sending new requests. */
	startDraining(): void {
		this.drainingSince ??= Date.now();
	}
}
