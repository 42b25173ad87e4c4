/**
 * The SDK as its users get it: `npm pack`, installed into an empty project outside this repository,
 * type-checked by that project's own tsconfig (once for browsers: `lib: DOM`, no @types/node; once
 * for Node: NodeNext resolution, Node's types, no DOM), then sdk/examples/ (the files sdk/README.md
 * shows) run with `node` against a real server whose model provider is the stand-in.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const SDK = join(ROOT, "sdk");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const PACKAGE_NAME = "@ai-app-platform/sdk";
const EXAMPLES = ["execute", "stream", "deployed-assistant", "upload-and-search", "error-handling"];

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;
let project: string;

async function admin(...args: string[]): Promise<unknown> {
	const { stdout } = await run("npm", ["run", "--silent", "admin", "--", ...args, "--json"], {
		cwd: ROOT,
		env: { ...process.env, DATABASE_URL: platform.databaseUrl, SECRET_KEY: TEST_SECRET_KEY },
	});
	return JSON.parse(stdout);
}

/** A deployed `support-bot` on the stand-in, as the deployed-assistant example expects. */
async function deploySupportBot(workspaceId: string): Promise<void> {
	await admin("assistant", "create", "--workspace", workspaceId, "--slug", "support-bot", "--name", "Support");
	await admin(
		"assistant",
		"update-draft",
		...["--workspace", workspaceId, "--slug", "support-bot", "--provider", "openai", "--model", "gpt-4o-mini"],
		...["--system-prompt", "You help {{customerName}}.", "--variables", JSON.stringify([{ name: "customerName", type: "string", required: true }])],
	);
	await admin("assistant", "create-version", "--workspace", workspaceId, "--slug", "support-bot");
	await admin("assistant", "publish", "--workspace", workspaceId, "--slug", "support-bot", "--version", "1");
}

async function typeCheck(configFile: string): Promise<void> {
	try {
		await run("node", [TSC, "-p", configFile], { cwd: project });
	} catch (error) {
		const failure = error as { stdout?: string; stderr?: string };
		throw new Error(`tsc -p ${configFile} failed:\n${failure.stdout}${failure.stderr}`);
	}
}

async function runExample(outDir: string, name: string): Promise<string> {
	const { stdout } = await run("node", [join(outDir, "examples", `${name}.js`)], {
		cwd: project,
		env: { PATH: process.env.PATH, PLATFORM_API_KEY: workspace.apiKey, PLATFORM_BASE_URL: platform.url },
	});
	return stdout;
}

beforeAll(async () => {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
	workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	await deploySupportBot(workspace.workspaceId);

	project = await mkdtemp(join(tmpdir(), "sdk-consumer-"));
	// `npm pack` runs the package's prepack script: the build into sdk/dist.
	const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: SDK });
	const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
	expect(packed.files.map((file) => file.path)).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/node.js"]));
	expect(packed.files.some((file) => file.path.startsWith("src/") || file.path.startsWith("examples/"))).toBe(false);

	await writeFile(join(project, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }));
	// Offline: the package has no dependencies, so nothing but the tarball is needed.
	await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(project, packed.filename)], { cwd: project });
	await mkdir(join(project, "examples"));
	for (const name of EXAMPLES) await copyFile(join(SDK, "examples", `${name}.ts`), join(project, "examples", `${name}.ts`));
}, 240_000);

afterAll(async () => {
	if (project) await rm(project, { recursive: true, force: true });
	await standIn?.close();
	await platform?.stop();
});

describe("the packed SDK in an empty project", () => {
	it("sdk/README.md shows the example files exactly as CI runs them", async () => {
		const readme = await readFile(join(SDK, "README.md"), "utf8");
		const shown = new Map([...readme.matchAll(/<!-- examples\/([\w-]+)\.ts -->\n```ts\n([^]*?)\n```/g)].map((match) => [match[1], match[2]]));
		expect([...shown.keys()].sort()).toEqual([...EXAMPLES].sort());
		expect((await readdir(join(SDK, "examples"))).sort()).toEqual(EXAMPLES.map((name) => `${name}.ts`).sort());
		for (const name of EXAMPLES) expect(shown.get(name), name).toBe((await readFile(join(SDK, "examples", `${name}.ts`), "utf8")).trimEnd());
	});

	it("installs as a package with ESM, declarations and no dependencies", async () => {
		const installed = JSON.parse(await readFile(join(project, "node_modules", PACKAGE_NAME, "package.json"), "utf8"));
		expect(installed).toMatchObject({ name: PACKAGE_NAME, type: "module", engines: { node: expect.any(String) } });
		expect(installed.dependencies).toBeUndefined();
		expect(await readdir(join(project, "node_modules"))).toEqual([".package-lock.json", "@ai-app-platform"]);
		// The main entry must load in browsers: no Node built-in anywhere in its module graph.
		const dist = join(project, "node_modules", PACKAGE_NAME, "dist");
		const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith(".js") && file !== "node.js");
		for (const file of files) expect(await readFile(join(dist, file), "utf8"), file).not.toMatch(/from\s+["']node:|import\(\s*["']node:|require\(/);
	});

	it("type-checks for browsers (lib DOM, no @types/node) and its examples run against the server", async () => {
		await writeFile(
			join(project, "tsconfig.dom.json"),
			JSON.stringify({
				compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], types: [], strict: true, rootDir: ".", outDir: "out-dom" },
				include: ["examples"],
			}),
		);
		await typeCheck("tsconfig.dom.json");
		const output = await runExample("out-dom", "execute");
		expect(output).toContain("Hello from the stand-in");
		expect(output).toMatch(/request req_/);
	}, 120_000);

	it("type-checks for Node (NodeNext, @types/node, no DOM), with the Node helpers, and runs every example", async () => {
		await writeFile(
			join(project, "node-helpers.ts"),
			[
				`import { createReadStream } from "node:fs";`,
				`import { PlatformClient, toFile, type Uploadable } from "${PACKAGE_NAME}";`,
				`import { fileFromPath } from "${PACKAGE_NAME}/node";`,
				`const uploads: Uploadable[] = [await fileFromPath("package.json"), createReadStream("package.json"), await toFile(Buffer.from("# Notes"), "notes.md")];`,
				`const client = new PlatformClient();`,
				`const source = await client.knowledge.sources.create({ name: "From Node", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });`,
				`for (const upload of uploads) console.log((await client.knowledge.documents.uploadAndPoll(source.id, upload)).status);`,
			].join("\n"),
		);
		await writeFile(
			join(project, "tsconfig.node.json"),
			JSON.stringify({
				compilerOptions: {
					target: "ES2022",
					module: "NodeNext",
					moduleResolution: "NodeNext",
					lib: ["ES2022"],
					types: ["node"],
					typeRoots: [join(ROOT, "node_modules", "@types")],
					strict: true,
					rootDir: ".",
					outDir: "out-node",
				},
				include: ["examples", "node-helpers.ts"],
			}),
		);
		await typeCheck("tsconfig.node.json");

		expect(await runExample("out-node", "execute")).toContain("Hello from the stand-in");
		const streamed = await runExample("out-node", "stream");
		expect(streamed).toContain("finish: stop");
		expect(streamed).toContain("Hello from the stand-in");
		expect(await runExample("out-node", "deployed-assistant")).toContain("Hello from the stand-in");
		expect(standIn.requests.at(-1)?.body).toMatchObject({ messages: expect.arrayContaining([{ role: "system", content: "You help Ada." }]) });
		const searched = await runExample("out-node", "upload-and-search");
		expect(searched).toContain("returns.md: READY");
		expect(searched).toMatch(/returns\.md: [^]*30 days/);
		const errors = await runExample("out-node", "error-handling");
		expect(errors).toMatch(/not found: NOT_FOUND \(request req_/);
		expect(errors).toContain("invalid messages");

		const { stdout } = await run("node", [join("out-node", "node-helpers.js")], {
			cwd: project,
			env: { PATH: process.env.PATH, PLATFORM_API_KEY: workspace.apiKey, PLATFORM_BASE_URL: platform.url },
		});
		expect(stdout.trim().split("\n")).toEqual(["READY", "READY", "READY"]);
	}, 180_000);
});
