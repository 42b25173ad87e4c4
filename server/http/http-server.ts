import { createServer, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "../shared/logger";
import { answerClientError } from "./middleware/errors";

export interface HttpLimits {
	/** Open connections at most; more are dropped on accept (each one holds memory and a file descriptor). */
	maxConnections: number;
	/** A request's headers and body must arrive within this, else 408 and the connection closes. */
	requestTimeoutMs: number;
	/** On stop, requests in flight get this long to finish; then generations still running are ended (closeHttpServer). */
	shutdownGraceMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({ maxConnections: 1024, requestTimeoutMs: 120_000, shutdownGraceMs: 25_000 });

/**
 * The HTTP server and its socket settings. Slow or idle clients must not hold sockets for long:
 * headers within 30 s, the whole request within `requestTimeoutMs` (responses are not limited:
 * long generations stream), at most `maxConnections` at once; what Node itself refuses is answered
 * in the error envelope (answerClientError).
 */
export function createHttpServer(listener: RequestListener, overrides: Partial<HttpLimits> | undefined, logger: Logger): Server {
	const limits = { ...DEFAULT_HTTP_LIMITS, ...overrides };
	const server = createServer(
		{
			requestTimeout: limits.requestTimeoutMs,
			headersTimeout: Math.min(30_000, limits.requestTimeoutMs),
			// How often Node looks for requests past those timeouts (its default, 30 s, would let a short limit run long).
			connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(limits.requestTimeoutMs / 4))),
		},
		listener,
	);
	server.keepAliveTimeout = 65_000;
	server.maxConnections = limits.maxConnections;
	server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => answerClientError(logger, error, socket));
	let droppedAt = -Infinity;
	server.on("drop", () => {
		// At most once a minute: under a flood every accept is dropped alike.
		if (Date.now() - droppedAt < 60_000) return;
		droppedAt = Date.now();
		logger.warn("connections dropped: HTTP_MAX_CONNECTIONS reached", { maxConnections: limits.maxConnections });
	});
	return server;
}

/** After the grace period, how long the generations told to stop get to answer before their connections are closed. */
const FORCE_CLOSE_AFTER_MS = 2_000;

/**
 * Stops accepting connections and lets the requests in flight finish. Each keep-alive connection is
 * closed as soon as it is idle, not after keepAliveTimeout (65 s). Past `graceMs`, `stopRequests`
 * ends what is still running (a generation then answers 503 INTERNAL_ERROR, retryable, or ends its
 * stream with that error event), and FORCE_CLOSE_AFTER_MS later any connection still busy is
 * closed: every trace is written before an orchestrator's kill (Kubernetes waits 30 s by default).
 */
export async function closeHttpServer(server: Server, graceMs: number, stopRequests: () => void): Promise<void> {
	const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
	let forceClose: NodeJS.Timeout | undefined;
	const graceOver = setTimeout(() => {
		stopRequests();
		forceClose = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_AFTER_MS);
	}, graceMs);
	try {
		await new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeIdleConnections();
		});
	} finally {
		clearInterval(idleSweep);
		clearTimeout(graceOver);
		clearTimeout(forceClose);
	}
}
