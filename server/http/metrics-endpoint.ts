import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { sendError } from "./middleware/errors";
import type { RawRoute } from "./raw-route";

const METRICS_PATH = "/metrics";

async function sendMetrics(services: PlatformServices, response: ServerResponse): Promise<void> {
	const { contentType, body } = await services.observability.metrics.expose();
	response.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" });
	response.end(body);
}

/** Compared as SHA-256 digests: equal lengths for timingSafeEqual, and no early exit on the first differing byte. */
function presentsToken(request: IncomingMessage, token: string): boolean {
	const header = request.headers.authorization ?? "";
	const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
	const digest = (value: string) => createHash("sha256").update(value).digest();
	return presented !== "" && timingSafeEqual(digest(presented), digest(token));
}

/**
 * GET /metrics on the API's listener, only when METRICS_TOKEN is set and only for a request
 * carrying it; without the setting the path does not exist here (404 like any unknown path), so
 * the metrics are never public by accident.
 */
export function metricsRoutes(services: PlatformServices): RawRoute[] {
	const token = services.observability.options.metricsToken;
	if (token === undefined) return [];
	return [
		{
			name: "metrics",
			errors: "envelope",
			matches: (path) => path === METRICS_PATH,
			async handle({ request, response }) {
				if (!presentsToken(request, token)) {
					response.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
					throw new AppError("UNAUTHENTICATED", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>");
				}
				if (request.method !== "GET" && request.method !== "HEAD") {
					response.setHeader("Allow", "GET");
					throw new AppError("NOT_FOUND", `No route for ${request.method} ${METRICS_PATH}`);
				}
				await sendMetrics(services, response);
			},
		},
	];
}

/** METRICS_PORT: a listener of its own that answers GET /metrics and nothing else (no token: keep the port off the public network). */
export async function startMetricsListener(services: PlatformServices, port: number, host: string): Promise<{ url: string; close(): Promise<void> }> {
	const server = createServer((request, response) => {
		const path = (request.url ?? "/").split("?")[0];
		if (path !== METRICS_PATH || request.method !== "GET") return sendError(request, response, new AppError("NOT_FOUND", `No route for ${request.method} ${path}; this listener serves GET ${METRICS_PATH}`));
		sendMetrics(services, response).catch((error) => {
			services.logger.error("metrics scrape failed", { error });
			if (!response.headersSent) sendError(request, response, new AppError("INTERNAL_ERROR", "Metrics could not be collected", { status: 500 }));
		});
	}).listen(port, host);
	await once(server, "listening");
	const address = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${address.port}${METRICS_PATH}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
