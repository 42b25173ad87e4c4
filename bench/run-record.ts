import { execFileSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";

function git(args: string[]): string {
	try {
		return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
	} catch {
		return "";
	}
}

/**
 * What a benchmark result was measured on, written at the top of its JSON so a figure is never read
 * without its code and its settings: the commit (and whether the tree had uncommitted changes), Node,
 * the machine's cores and load, and the settings the bench ran with.
 */
export function describeRun(settings: Record<string, unknown>) {
	return {
		commit: git(["rev-parse", "--short", "HEAD"]) || null,
		uncommittedChanges: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
		node: process.version,
		date: new Date().toISOString(),
		cores: availableParallelism(),
		loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
		settings,
	};
}
