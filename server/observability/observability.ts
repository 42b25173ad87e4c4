import { PlatformMetrics } from "./metrics";

/** METRICS_PORT, METRICS_TOKEN, ACCESS_LOG (server/config.ts). */
export interface ObservabilityOptions {
	/** A listener of its own for GET /metrics; unset: none. */
	metricsPort?: number;
	/** GET /metrics on the API's listener, for `Authorization: Bearer <token>` only; unset: not served there. */
	metricsToken?: string;
	/** One JSON line per request at `info`. */
	accessLog: boolean;
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

	constructor(readonly options: ObservabilityOptions) {
		this.metrics = new PlatformMetrics();
	}

	get draining(): boolean {
		return this.drainingSince !== null;
	}

	/** Shutdown started: readiness fails so load balancers stop sending new requests. */
	startDraining(): void {
		this.drainingSince ??= Date.now();
	}
}
