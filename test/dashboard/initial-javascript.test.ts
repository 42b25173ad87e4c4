import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** What a browser downloads before the first page can show, gzipped. */
const INITIAL_JAVASCRIPT_BUDGET_BYTES = 250 * 1024;
const ROOT = join(import.meta.dirname, "..", "..");

/**
 * The dashboard as `npm run build` makes it (a production build: the test run's own build is a
 * development one), and what its first page loads: the entry script and the modules it preloads.
 * Pages are chunks of their own, loaded when visited, so the editor never weighs on sign-in.
 */
describe("the dashboard's first page", { timeout: 120_000 }, () => {
	let outDir: string;
	let html: string;

	beforeAll(async () => {
		outDir = await mkdtemp(join(tmpdir(), "web-budget-"));
		await promisify(execFile)(process.execPath, [join(ROOT, "node_modules", "vite", "bin", "vite.js"), "build", "--config", join(ROOT, "web", "vite.config.ts"), "--outDir", outDir, "--emptyOutDir", "--logLevel", "error"], {
			cwd: ROOT,
			env: { ...process.env, NODE_ENV: "production" },
		});
		html = await readFile(join(outDir, "index.html"), "utf8");
	});
	afterAll(async () => {
		if (outDir) await rm(outDir, { recursive: true, force: true });
	});

	it(`loads at most ${INITIAL_JAVASCRIPT_BUDGET_BYTES / 1024} KB of JavaScript, gzipped, and none of the assistant, knowledge, trace or usage pages (nor the charting library)`, async () => {
		const initial = [...html.matchAll(/<script[^>]+src="\/([^"]+\.js)"|<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g)].map((match) => (match[1] ?? match[2]) as string);
		expect(initial.length).toBeGreaterThan(0);
		let gzipped = 0;
		for (const file of initial) gzipped += gzipSync(await readFile(join(outDir, file))).length;
		expect(gzipped).toBeLessThanOrEqual(INITIAL_JAVASCRIPT_BUDGET_BYTES);
		// Each assistant page is a chunk of its own, and the first page preloads none of them.
		const pages = [
			"assistants-page",
			"editor-page",
			"versions-page",
			"compare-page",
			"deployments-page",
			"environments-page",
			"sources-page",
			"source-page",
			"traces-page",
			"trace-page",
			"usage-page",
			"usage-charts",
		];
		const chunks = await readdir(join(outDir, "assets"));
		for (const page of pages) expect(chunks.some((chunk) => chunk.startsWith(`${page}-`) && chunk.endsWith(".js")), page).toBe(true);
		expect(initial.filter((file) => pages.some((page) => file.includes(page)))).toEqual([]);
		// The charting library comes with the usage charts only.
		for (const file of initial) expect((await readFile(join(outDir, file), "utf8")).includes("recharts-"), file).toBe(false);
	});
});
