import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { TEST_EGRESS_ALLOW_HOSTS, TEST_SECRET_KEY } from "./platform";

const execute = promisify(execFile);
const ADMIN_BUNDLE = fileURLToPath(new URL("../../dist/admin.js", import.meta.url));

export interface OperatorCliResult {
	code: number;
	stdout: string;
	stderr: string;
}

/**
 * The operator CLI against a test platform's database, with --json: the bundle `npm run admin`
 * runs, built once for the whole run by test/global-setup.ts and started with node directly (npm
 * itself adds a few hundred milliseconds to each of many calls); the operator-cli test runs the
 * README's command as written.
 */
export function runOperatorCli(databaseUrl: string, args: string[]): Promise<OperatorCliResult> {
	return runBundle({ ...process.env, DATABASE_URL: databaseUrl, SECRET_KEY: TEST_SECRET_KEY, EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS }, [...args, "--json"]);
}

/** The same, as a person runs it: no --json unless given (readable output, help, usage errors). */
export function runOperatorCliAsTyped(databaseUrl: string | undefined, args: string[]): Promise<OperatorCliResult> {
	const environment: NodeJS.ProcessEnv = { ...process.env, SECRET_KEY: TEST_SECRET_KEY, EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS };
	if (databaseUrl === undefined) delete environment.DATABASE_URL;
	else environment.DATABASE_URL = databaseUrl;
	return runBundle(environment, args);
}

/**
 * The operator CLI as an operator runs it beside `npm start` with no DATABASE_URL: on the embedded
 * cluster under `dataDirectory` (the running server's, shared) with that directory's secret-key file.
 */
export function runOperatorCliOnDataDirectory(dataDirectory: string, args: string[]): Promise<OperatorCliResult> {
	const environment: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDirectory, EGRESS_ALLOW_HOSTS: TEST_EGRESS_ALLOW_HOSTS };
	delete environment.DATABASE_URL;
	delete environment.SECRET_KEY;
	return runBundle(environment, [...args, "--json"]);
}

async function runBundle(environment: NodeJS.ProcessEnv, args: string[]): Promise<OperatorCliResult> {
	try {
		const { stdout, stderr } = await execute(process.execPath, ["--enable-source-maps", ADMIN_BUNDLE, ...args], { env: environment });
		return { code: 0, stdout, stderr };
	} catch (error) {
		const failure = error as { code: number; stdout: string; stderr: string };
		return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
	}
}
