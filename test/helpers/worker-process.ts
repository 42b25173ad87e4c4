import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { TEST_EGRESS_ALLOW_HOSTS, TEST_SECRET_KEY, type TestPlatform } from "./platform";

/**
 * The command behind `npm run worker`, spawned directly over the test platform's database: through
 * npm, kill -9 would hit npm and leave the node process it started running.
 */
export function startWorkerProcess(platform: TestPlatform, settings: Record<string, string> = {}): ChildProcess {
	return spawn(process.execPath, ["--import", "tsx", "server/worker.ts"], {
		cwd: process.cwd(),
		env: {
			...process.env,
			DATABASE_URL: platform.databaseUrl,
			SECRET_KEY: TEST_SECRET_KEY,
			DATA_DIR: platform.dataDirectory,
			LOG_LEVEL: "error",
			EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS,
			...settings,
		},
		stdio: ["ignore", "ignore", "inherit"],
	});
}

export async function stopWorkerProcess(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
	if (worker.exitCode !== null || worker.signalCode !== null) return;
	const exited = once(worker, "exit");
	worker.kill(signal);
	await exited;
}
