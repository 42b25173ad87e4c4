/**
 * The SDK as its users get it: `npm pack`, installed into an empty project outside this repository,
 * type-checked by that project's own tsconfig (once for browsers: `lib: DOM`, no @types/node; once
 * for Node: NodeNext resolution, Node's types, no DOM), then sdk/examples/ (the files sdk/README.md
 * shows) run against a real server whose model provider is the stand-in: with `node`, with Bun and
 * with Deno (the runtimes' own npm packages, installed beside the project), and the package bundled
 * for a browser page driven by Chromium. One server, one tarball, one project for all of them.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Sdk from "../../sdk/src/index";
import { type LoopbackServer, listenOnLoopback } from "../helpers/loopback-server";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";
import { runOperatorCli } from "../helpers/operator-cli";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const SDK = join(ROOT, "sdk");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const PACKAGE_NAME = "@ai-app-platform/sdk";
const EXAMPLES = ["execute", "stream", "deployed-assistant", "upload-and-search", "error-handling"];
// The runtimes as npm ships them (each package brings its binary through an optional dependency).
const BUN_VERSION = "1.4.5";
const DENO_VERSION = "2.9.6";
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;
let project: string;
/** Where bun and deno are installed: beside the consumer project, so that its node_modules holds the SDK alone. */
let runtimes: string;

async function admin(...args: string[]): Promise<unknown> {
	const { code, stdout, stderr } = await runOperatorCli(platform.databaseUrl, args);
	if (code !== 0) throw new Error(`admin ${args.join(" ")} exited ${code}: ${stderr}`);
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

/** Runs a command in the consumer project with nothing from our environment but PATH, the key and the server's address. */
async function runInProject(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
	try {
		const { stdout } = await run(command, args, {
			cwd: project,
			env: { PATH: process.env.PATH, PLATFORM_API_KEY: workspace.apiKey, PLATFORM_BASE_URL: platform.url, ...env },
		});
		return stdout;
	} catch (error) {
		const failure = error as { stdout?: string; stderr?: string };
		throw new Error(`${command} ${args.join(" ")} failed:\n${failure.stdout}${failure.stderr}`);
	}
}

function runExample(outDir: string, name: string): Promise<string> {
	return runInProject("node", [join(outDir, "examples", `${name}.js`)]);
}

/** What each example prints when it works, whichever runtime runs it. */
async function expectEveryExampleToWork(runOne: (name: string) => Promise<string>): Promise<void> {
	expect(await runOne("execute")).toMatch(/Hello from the stand-in \(request req_/);
	const streamed = await runOne("stream");
	expect(streamed).toContain("finish: stop");
	expect(streamed).toContain("Hello from the stand-in");
	expect(await runOne("deployed-assistant")).toContain("Hello from the stand-in");
	expect(standIn.requests.at(-1)?.body).toMatchObject({ messages: expect.arrayContaining([{ role: "system", content: "You help Ada." }]) });
	const searched = await runOne("upload-and-search");
	expect(searched).toContain("returns.md: READY");
	expect(searched).toMatch(/returns\.md: [^]*30 days/);
	const errors = await runOne("error-handling");
	expect(errors).toMatch(/not found: NOT_FOUND \(request req_/);
	expect(errors).toContain("invalid messages");
}

/** bun and deno from their npm packages, at exact versions (their install scripts put the platform's binary in place). */
async function installRuntimes(): Promise<void> {
	await mkdir(runtimes);
	await writeFile(join(runtimes, "package.json"), JSON.stringify({ name: "runtimes", private: true, allowScripts: { bun: true, deno: true } }));
	await run("npm", ["install", "--no-audit", "--no-fund", "--save-exact", `bun@${BUN_VERSION}`, `deno@${DENO_VERSION}`], { cwd: runtimes });
}

/** The server with the provider stand-in and a deployed `support-bot`, as the examples expect. */
async function startServer(): Promise<void> {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
	workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	await deploySupportBot(workspace.workspaceId);
}

/** `npm pack`, the tarball installed into the empty project, and the examples copied beside it. */
async function installPackedSdk(): Promise<void> {
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
}

beforeAll(async () => {
	project = await mkdtemp(join(tmpdir(), "sdk-consumer-"));
	runtimes = join(project, "runtimes");
	await Promise.all([startServer(), installPackedSdk(), installRuntimes()]);
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

		await expectEveryExampleToWork((name) => runExample("out-node", name));
		const helpers = await runInProject("node", [join("out-node", "node-helpers.js")]);
		expect(helpers.trim().split("\n")).toEqual(["READY", "READY", "READY"]);
	}, 180_000);
});

describe(`the packed SDK in Bun ${BUN_VERSION}`, () => {
	it("runs every example, TypeScript as written, against the server", async () => {
		const bun = join(runtimes, "node_modules", ".bin", "bun");
		expect((await runInProject(bun, ["--version"])).trim()).toBe(BUN_VERSION);
		await expectEveryExampleToWork((name) => runInProject(bun, [join("examples", `${name}.ts`)]));
	}, 120_000);
});

describe(`the packed SDK in Deno ${DENO_VERSION}`, () => {
	// Deno's cache stays in the project, and no update check leaves the machine.
	const denoEnvironment = () => ({ DENO_DIR: join(project, ".deno"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" });

	it("type-checks every example with Deno's TypeScript, then runs each allowed only the server's address and the SDK's variables", async () => {
		const deno = join(runtimes, "node_modules", ".bin", "deno");
		expect(await runInProject(deno, ["--version"], denoEnvironment())).toContain(`deno ${DENO_VERSION}`);
		await runInProject(deno, ["check", ...EXAMPLES.map((name) => join("examples", `${name}.ts`))], denoEnvironment());
		const permissions = [`--allow-net=${new URL(platform.url).host}`, "--allow-env=PLATFORM_API_KEY,PLATFORM_BASE_URL,PLATFORM_LOG"];
		await expectEveryExampleToWork((name) => runInProject(deno, ["run", ...permissions, join("examples", `${name}.ts`)], denoEnvironment()));
	}, 120_000);
});

describe("the packed SDK in a browser (Chromium)", () => {
	let browser: Browser;
	let bundle: string;
	let browserWorkspace: TestWorkspace;
	let anotherSite: LoopbackServer;

	beforeAll(async () => {
		// What a bundler makes of `import ... from "@ai-app-platform/sdk"` for a page: the installed package,
		// resolved through its exports for the browser platform, where no Node built-in could resolve.
		const built = await build({
			stdin: { contents: `export * from "${PACKAGE_NAME}";`, resolveDir: project, loader: "js" },
			bundle: true,
			write: false,
			format: "iife",
			globalName: "PlatformSDK",
			platform: "browser",
			target: "es2022",
			logLevel: "silent",
		});
		bundle = built.outputFiles[0].text;
		browserWorkspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		anotherSite = await listenOnLoopback(createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Another site</title>")));
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	}, 60_000);

	afterAll(async () => {
		await browser?.close();
		await anotherSite?.close();
	});

	async function pageWithSdk(url: string): Promise<Page> {
		const page = await browser.newPage();
		await page.goto(url);
		await page.addScriptTag({ content: bundle });
		return page;
	}

	it("on a page of the API's own origin: an execute with its request id, a stream read event by event, a list page after page, typed errors, a File uploaded and searched", async () => {
		const page = await pageWithSdk(`${platform.url}/healthz`);
		const seen = await page.evaluate(
			async ({ apiKey, baseURL }) => {
				const { BadRequestError, NotFoundError, PlatformClient } = (globalThis as unknown as { PlatformSDK: typeof Sdk }).PlatformSDK;
				const client = new PlatformClient({ apiKey, baseURL, maxRetries: 0 });
				const request = { providerName: "openai" as const, model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Say hello." }] };

				const executed = await client.runtime.execute(request).withResponse();

				const stream = await client.runtime.stream(request);
				const events: string[] = [];
				let text = "";
				for await (const event of stream) {
					events.push(event.event);
					if (event.event === "delta") text += event.data.content;
				}

				const embeddingModel = { provider: "builtin" as const, model: "builtin-hash-v1" };
				const first = await client.knowledge.sources.create({ name: "first", embeddingModel });
				for (const name of ["second", "third"]) await client.knowledge.sources.create({ name, embeddingModel });
				const listed: string[] = [];
				for await (const source of client.knowledge.sources.list({ limit: 2 })) listed.push(source.name);
				const pageSizes: number[] = [];
				for await (const each of client.knowledge.sources.list({ limit: 2 }).iterPages()) pageSizes.push(each.data.length);

				const notFound = await client.knowledge.sources.retrieve("ks_does_not_exist").then(
					() => "resolved",
					(error: unknown) => error,
				);
				const invalid = await client.runtime.execute({ ...request, messages: [] }).then(
					() => "resolved",
					(error: unknown) => error,
				);

				const file = new File(["# Returns\n\nReturns are accepted within 30 days of delivery."], "returns.md", { type: "text/markdown" });
				const document = await client.knowledge.documents.uploadAndPoll(first.id, file);
				const hits = await client.knowledge.sources.search(first.id, { query: "how long can I return an item?", topK: 1 });

				return {
					executed: { content: executed.data.message.content, requestId: executed.requestId },
					streamed: { events, text },
					listed,
					pageSizes,
					notFound: notFound instanceof NotFoundError ? { status: notFound.status, code: notFound.code, requestId: notFound.requestId } : String(notFound),
					invalid: invalid instanceof BadRequestError ? { code: invalid.code, fields: invalid.fields?.map((issue) => issue.field) } : String(invalid),
					document: { filename: document.filename, status: document.status },
					hit: hits.data[0]?.text,
				};
			},
			{ apiKey: browserWorkspace.apiKey, baseURL: platform.url },
		);

		expect(seen.executed).toEqual({ content: "Hello from the stand-in", requestId: expect.stringMatching(/^req_/) });
		expect(seen.streamed).toEqual({ events: ["delta", "usage", "done"], text: "Hello from the stand-in" });
		expect(seen.listed).toEqual(["third", "second", "first"]);
		expect(seen.pageSizes).toEqual([2, 1]);
		expect(seen.notFound).toEqual({ status: 404, code: "NOT_FOUND", requestId: expect.stringMatching(/^req_/) });
		expect(seen.invalid).toEqual({ code: "VALIDATION_ERROR", fields: ["messages"] });
		expect(seen.document).toEqual({ filename: "returns.md", status: "READY" });
		expect(seen.hit).toContain("30 days");
		await page.close();
	}, 60_000);

	it("a page of another origin cannot call it: the API answers no CORS headers, so the browser stops the request at its preflight and nothing is created", async () => {
		const page = await pageWithSdk(`${anotherSite.origin}/`);
		const refused = await page.evaluate(
			async ({ apiKey, baseURL }) => {
				const { APIConnectionError, PlatformClient } = (globalThis as unknown as { PlatformSDK: typeof Sdk }).PlatformSDK;
				const client = new PlatformClient({ apiKey, baseURL, maxRetries: 0 });
				const outcome = await client.knowledge.sources.create({ name: "from another site", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } }).then(
					() => "created",
					(error: unknown) => error,
				);
				return outcome instanceof APIConnectionError ? "APIConnectionError" : String(outcome);
			},
			{ apiKey: browserWorkspace.apiKey, baseURL: platform.url },
		);
		expect(refused).toBe("APIConnectionError");
		await page.close();

		const sources = (await (await platform.request("GET", "/knowledge/sources?limit=100", { key: browserWorkspace.apiKey })).json()) as { data: { name: string }[] };
		expect(sources.data.map((source) => source.name)).not.toContain("from another site");
		const preflight = await fetch(`${platform.url}/knowledge/sources`, {
			method: "OPTIONS",
			headers: { origin: anotherSite.origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" },
		});
		expect([...preflight.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
	}, 60_000);
});
