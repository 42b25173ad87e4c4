/**
 * `npm run admin`: runs the operator CLI's bundle (dist/admin.js), building it first only when it
 * is missing or one of its sources changed since it was built (dist/build-inputs.json, written by
 * scripts/build.ts). Plain JavaScript, so it starts without a TypeScript loader; a rebuild costs
 * a second or two, a fresh bundle nothing.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function bundleIsFresh() {
	let manifest;
	try {
		manifest = JSON.parse(readFileSync(join(root, "dist", "build-inputs.json"), "utf8"));
		statSync(join(root, "dist", "admin.js"));
	} catch {
		return false;
	}
	const sources = manifest.entries?.admin;
	if (typeof sources !== "object" || sources === null) return false;
	for (const [file, builtFrom] of Object.entries(sources)) {
		let modified;
		try {
			modified = statSync(join(root, file)).mtimeMs;
		} catch {
			return false;
		}
		// Newer than the build's start: edited since (or during) the build. Different but older: replaced by another version.
		if (modified !== builtFrom || modified > manifest.startedAt) return false;
	}
	return true;
}

if (!bundleIsFresh()) {
	const build = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts", "build.ts")], { cwd: root, stdio: "inherit" });
	if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(pathToFileURL(join(root, "dist", "admin.js")).href);
