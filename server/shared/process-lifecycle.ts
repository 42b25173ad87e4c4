import type { Logger } from "./logger";

/** Runs `stop` once on SIGINT or SIGTERM, then exits 0: the shutdown every long-running entry point shares. */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
	let stopping = false;
	const onSignal = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		logger.info("stopping", { signal });
		await stop();
		process.exit(0);
	};
	process.once("SIGINT", () => void onSignal("SIGINT"));
	process.once("SIGTERM", () => void onSignal("SIGTERM"));
}

/**
 * A failed start prints its stack (not a JSON log line: the logger may not exist yet) and exits 1;
 * a configuration error (server/config.ts) prints only its message, which says what to fix.
 */
export function exitOnStartFailure(error: unknown): never {
	const configuration = error instanceof Error && error.name === "ConfigurationError";
	process.stderr.write(`${error instanceof Error ? (configuration ? error.message : (error.stack ?? error.message)) : String(error)}\n`);
	process.exit(1);
}
