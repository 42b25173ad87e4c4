/**
 * SQLSTATEs PostgreSQL sends while it stops, starts or is unreachable for a moment: class 08
 * (connection exception), 57P01-57P03 (admin or crash shutdown, cannot connect now), 53300 (too
 * many connections).
 */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03", "53300"]);
/** Node's and pg's words for a connection that could not be made or was lost. */
const CONNECTION_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const CONNECTION_MESSAGES = /Connection terminated|connection (?:timeout|closed)|Client has encountered a connection error|Knex: Timeout acquiring a connection|the database system is (?:starting up|shutting down)|terminating connection due to administrator command/i;

/**
 * Whether a failure means the database did not answer (a restart, a failover, the network) rather
 * than refused what was asked: the request may succeed if sent again (503, retryable), and what
 * was to be written (traces) must be kept for later, not discarded.
 */
export function isUnavailable(error: unknown): boolean {
	for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
		const { code, message } = current as { code?: unknown; message?: unknown };
		if (typeof code === "string" && (code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_CODES.has(code))) return true;
		if (typeof message === "string" && CONNECTION_MESSAGES.test(message)) return true;
		if (current instanceof AggregateError && current.errors.some((inner) => isUnavailable(inner))) return true;
	}
	return false;
}
