/**
 * The platform in its own process for bench/runtime.ts, so the benchmark's client and provider
 * stand-in do not share its event loop. Prints `{"url": ...}` once listening; stops on SIGTERM.
 */
import { parseEgressAllowList } from "../server/egress/allow-list";
import { startPlatform } from "../server/platform";
import { createLogger } from "../server/shared/logger";

const databaseUrl = process.env.DATABASE_URL;
const secretKey = process.env.SECRET_KEY;
if (!databaseUrl || !secretKey) throw new Error("DATABASE_URL and SECRET_KEY are required");
// No rate limit: the bench measures overhead, not the limiter refusing it. The provider stand-in is on loopback.
const platform = await startPlatform({
	databaseUrl,
	secretKey,
	port: 0,
	host: "127.0.0.1",
	logger: createLogger("error"),
	quotas: { rateLimitPerMinute: 0 },
	egress: { allowList: parseEgressAllowList("127.0.0.1") },
	// METRICS_PORT (bench/soak.ts reads event-loop lag there); access lines would go to stdout, which carries the handshake.
	observability: {
		metricsPort: process.env.METRICS_PORT === undefined ? undefined : Number(process.env.METRICS_PORT),
		accessLog: false,
		// bench/runtime.ts measures a server exporting spans to a local receiver beside one that does not.
		tracing: process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? { tracesEndpoint: `${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`, headers: {}, serviceName: "bench" } : undefined,
	},
	// The soak keeps one MCP connection for its whole run.
	oauth: { accessTokenTtlSeconds: 3600, registrationsPerHour: 0 },
});
process.stdout.write(`${JSON.stringify({ url: platform.url, metricsUrl: platform.metricsUrl })}\n`);
process.once("SIGTERM", () => {
	platform.close().finally(() => process.exit(0));
});
