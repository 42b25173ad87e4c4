import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * What `new Worker(code, { eval })` starts for a thread whose code is an entry point of its own:
 * under tsx (tests, scripts) the TypeScript file `source`, beside the calling module `callerUrl`,
 * with tsx registered in the thread first (a thread's `execArgv` cannot: `--import` is not applied to
 * it on Node 20; tsx resolves from the working directory); in the bundle, `<bundle>.js` at its root (scripts/build.ts
 * puts shared code in dist/chunks/ and entry points in dist/).
 */
export function threadEntry(callerUrl: string, source: string, bundle: string): { code: string | URL; eval: boolean } {
	const here = fileURLToPath(callerUrl);
	if (here.endsWith(".ts")) {
		const entry = pathToFileURL(join(dirname(here), source)).href;
		return { code: `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`, eval: true };
	}
	const directory = dirname(here);
	return { code: pathToFileURL(join(basename(directory) === "chunks" ? dirname(directory) : directory, `${bundle}.js`)), eval: false };
}
