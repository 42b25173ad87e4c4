/**
 * Structured JSON lines on stdout/stderr. Callers pass context objects; secrets never go in them
 * (API keys, provider credentials and tokens are not logged anywhere).
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
	debug(message: string, context?: Record<string, unknown>): void;
	info(message: string, context?: Record<string, unknown>): void;
	warn(message: string, context?: Record<string, unknown>): void;
	error(message: string, context?: Record<string, unknown>): void;
}

function serializeError(error: unknown): unknown {
	if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
	return error;
}

export function createLogger(minimum: Level | "silent" = "info"): Logger {
	const write = (level: Level, message: string, context?: Record<string, unknown>) => {
		if (minimum === "silent" || ORDER[level] < ORDER[minimum]) return;
		const entry: Record<string, unknown> = { time: new Date().toISOString(), level, message };
		if (context) for (const [key, value] of Object.entries(context)) entry[key] = key === "error" ? serializeError(value) : value;
		(level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${JSON.stringify(entry)}\n`);
	};
	return {
		debug: (message, context) => write("debug", message, context),
		info: (message, context) => write("info", message, context),
		warn: (message, context) => write("warn", message, context),
		error: (message, context) => write("error", message, context),
	};
}
