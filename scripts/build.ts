/**
 * npm run build: the API server, the ingestion worker and the operator CLI as plain ESM bundles in
 * dist/, what `npm start`, `npm run worker` and `npm run admin` run. Compiled ahead rather than through tsx at run time: no
 * loader thread and a faster start, and no `__name` wrapper around every closure created per
 * request (tsx keeps function names that way), which showed in the runtime benchmark.
 * Packages stay external (imported from node_modules as usual); takes well under a second.
 * Code splitting keeps dynamic imports lazy (the Mistral, S3 and Pinecone SDKs, HTTP for the CLI):
 * inlined, each would load at every start whether configured or not.
 */
import { build } from "esbuild";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

/** `parser`: the parser processes' entry (server/knowledge/parse/parser-pool.ts forks dist/parser.js). */
export const SERVER_ENTRY_POINTS = { main: "server/main.ts", worker: "server/worker.ts", admin: "scripts/admin.ts", parser: "server/knowledge/parse/parser-process.ts" };

/**
 * Each file is written beside its target and renamed over it, so a process starting meanwhile
 * (several `npm run worker` at once, say) loads either the old bundle or the new one, never half.
 */
export async function buildBundles(entryPoints: Record<string, string>, outdir: string): Promise<void> {
	const result = await build({
		entryPoints,
		outdir,
		bundle: true,
		platform: "node",
		format: "esm",
		splitting: true,
		chunkNames: "chunks/[name]-[hash]",
		target: "node20",
		packages: "external",
		sourcemap: "linked",
		logLevel: "warning",
		write: false,
	});
	for (const file of result.outputFiles) {
		await mkdir(dirname(file.path), { recursive: true });
		const temporary = `${file.path}.${process.pid}.tmp`;
		await writeFile(temporary, file.contents);
		await rename(temporary, file.path);
	}
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	await buildBundles(SERVER_ENTRY_POINTS, "dist");
}
