/**
 * npm run build: the API server, the ingestion worker and the operator CLI as plain ESM bundles in
 * dist/, what `npm start`, `npm run worker` and `npm run admin` run. Compiled ahead rather than through tsx at run time: no
 * loader thread and a faster start, and no `__name` wrapper around every closure created per
 * request (tsx keeps function names that way), which showed in the runtime benchmark.
 * Packages stay external (imported from node_modules as usual); takes well under a second.
 * Code splitting keeps dynamic imports lazy (the Mistral, S3 and Pinecone SDKs, HTTP for the CLI):
 * inlined, each would load at every start whether configured or not.
 */
import { build, type Metafile } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";

/**
 * `parser`: the parser processes' entry (server/knowledge/parse/parser-pool.ts forks dist/parser.js);
 * `index-builder`: the search index threads' (server/knowledge/index/index-builder-pool.ts);
 * `body-thread`: the thread that parses direct uploads' bodies (server/http/body-thread.ts).
 */
export const SERVER_ENTRY_POINTS = {
	main: "server/main.ts",
	worker: "server/worker.ts",
	admin: "scripts/admin.ts",
	parser: "server/knowledge/parse/parser-process.ts",
	"index-builder": "server/knowledge/index/index-builder-thread.ts",
	"body-thread": "server/http/body-thread-entry.ts",
};

/**
 * Each file is written beside its target and renamed over it, so a process starting meanwhile
 * (several `npm run worker` at once, say) loads either the old bundle or the new one, never half.
 */
export async function buildBundles(entryPoints: Record<string, string>, outdir: string): Promise<void> {
	const startedAt = Date.now();
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
		metafile: true,
	});
	for (const file of [...result.outputFiles, { path: join(outdir, BUILD_INPUTS), contents: await describeInputs(result.metafile, entryPoints, outdir, startedAt) }]) {
		await mkdir(dirname(file.path), { recursive: true });
		const temporary = `${file.path}.${process.pid}.tmp`;
		await writeFile(temporary, file.contents);
		await rename(temporary, file.path);
	}
}

/**
 * Written last, beside the bundles: the source files each entry was built from, with their
 * modification times, so `npm run admin` (scripts/admin/launch.mjs) rebuilds only when one changed.
 * Paths are relative to the directory holding `outdir`; the build script itself counts as an input.
 */
export const BUILD_INPUTS = "build-inputs.json";

async function describeInputs(metafile: Metafile, entryPoints: Record<string, string>, outdir: string, startedAt: number): Promise<Uint8Array> {
	const root = resolve(outdir, "..");
	const entries: Record<string, Record<string, number>> = {};
	for (const [name, entryPoint] of Object.entries(entryPoints)) {
		const output = Object.entries(metafile.outputs).find(([, described]) => described.entryPoint === entryPoint)?.[0];
		const sources = new Set<string>([relative(process.cwd(), fileURLToPath(import.meta.url))]);
		const visited = new Set<string>();
		const visit = (outputPath: string) => {
			const described = metafile.outputs[outputPath];
			if (!described || visited.has(outputPath)) return;
			visited.add(outputPath);
			for (const input of Object.keys(described.inputs)) sources.add(input);
			for (const imported of described.imports) if (!imported.external) visit(imported.path);
		};
		if (output) visit(output);
		const files: Record<string, number> = {};
		for (const source of sources) files[relative(root, resolve(source))] = (await stat(source)).mtimeMs;
		entries[name] = files;
	}
	return new TextEncoder().encode(`${JSON.stringify({ startedAt, entries })}\n`);
}

/** What the dashboard is built from: a change to any of these rebuilds it. */
const WEB_SOURCES = ["web", "contract", "package-lock.json"];
const WEB_SOURCE_HASH_FILE = ".source-hash";
const WEB_CONFIG = "web/vite.config.ts";

/**
 * The dashboard (web/, Vite): built only when its sources changed since the last build (a hash of
 * every source file is kept beside the output), so `npm start` stays fast. Built beside the
 * previous build and swapped in whole; every asset is also stored gzip- and brotli-compressed,
 * which the server sends to browsers that accept them.
 */
export async function buildWebApplication(outdir: string): Promise<"built" | "fresh" | "absent"> {
	// A copy of the server alone (no web/) serves the API without the dashboard.
	if (!(await stat(WEB_CONFIG).catch(() => undefined))) return "absent";
	const sourceHash = await hashSources(WEB_SOURCES);
	const previous = await readFile(join(outdir, WEB_SOURCE_HASH_FILE), "utf8").catch(() => "");
	if (previous === sourceHash) return "fresh";
	const staging = `${outdir}.${process.pid}.tmp`;
	await rm(staging, { recursive: true, force: true });
	const { build: buildWithVite } = await import("vite");
	await buildWithVite({ configFile: WEB_CONFIG, logLevel: "warn", build: { outDir: resolve(staging) } });
	await precompress(staging);
	await writeFile(join(staging, WEB_SOURCE_HASH_FILE), sourceHash);
	const retired = `${outdir}.${process.pid}.old`;
	await rename(outdir, retired).catch(() => {});
	await rename(staging, outdir);
	await rm(retired, { recursive: true, force: true });
	return "built";
}

async function hashSources(roots: string[]): Promise<string> {
	const hash = createHash("sha256");
	const visit = async (path: string): Promise<void> => {
		const info = await stat(path).catch(() => undefined);
		if (!info) return;
		if (info.isDirectory()) {
			for (const entry of (await readdir(path)).sort()) if (entry !== "node_modules") await visit(join(path, entry));
			return;
		}
		hash.update(relative(".", path)).update("\0").update(await readFile(path)).update("\0");
	};
	for (const root of roots) await visit(root);
	return hash.digest("hex");
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const COMPRESSIBLE = /\.(js|css|html|svg|json|map|txt)$/;

async function precompress(directory: string): Promise<void> {
	for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile() || !COMPRESSIBLE.test(entry.name) || entry.name.endsWith(".map")) continue;
		const path = join(entry.parentPath, entry.name);
		const content = await readFile(path);
		await writeFile(`${path}.gz`, await gzipAsync(content, { level: 9 }));
		await writeFile(`${path}.br`, await brotliAsync(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
	}
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	await buildBundles(SERVER_ENTRY_POINTS, "dist");
	await buildWebApplication("dist/web");
}
