/**
 * openapi.yaml serves clients we did not write: two independent generators from the npm registry
 * (@hey-api/openapi-ts with its fetch client; openapi-typescript with openapi-fetch) each produce a
 * client, a small program compiles against it under strict tsc, and runs against the real server:
 * one successful call and one error whose body is typed as the error envelope.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const OPENAPI = join(ROOT, "openapi.yaml");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

let platform: TestPlatform;
let workspace: TestWorkspace;
/** A project of its own whose node_modules is the repository's, so that openapi-fetch resolves as installed. */
let project: string;

/** Both programs in one strict tsc run (one compiler start-up on a machine shared by parallel test files). */
async function compile(entries: string[]): Promise<void> {
	await writeFile(
		join(project, "tsconfig.json"),
		JSON.stringify({
			compilerOptions: {
				target: "ES2022",
				module: "NodeNext",
				moduleResolution: "NodeNext",
				lib: ["ES2022", "DOM"],
				types: ["node"],
				typeRoots: [join(ROOT, "node_modules", "@types")],
				strict: true,
				noUncheckedIndexedAccess: true,
				noImplicitOverride: true,
				exactOptionalPropertyTypes: false,
				rootDir: ".",
				outDir: "out",
			},
			files: entries.map((entry) => `${entry}.ts`),
		}),
	);
	try {
		await run("node", [TSC, "-p", "tsconfig.json"], { cwd: project });
	} catch (error) {
		const failure = error as { stdout?: string; stderr?: string };
		throw new Error(`strict tsc failed:\n${failure.stdout}${failure.stderr}`);
	}
}

async function runProgram(entry: string): Promise<{ names: string[]; status: number; code: string }> {
	const { stdout } = await run("node", [join("out", `${entry}.js`)], {
		cwd: project,
		env: { PATH: process.env.PATH, PLATFORM_API_KEY: workspace.apiKey, PLATFORM_BASE_URL: platform.url },
	});
	return JSON.parse(stdout);
}

/** @hey-api/openapi-ts with its fetch client, and a program using it. */
async function generateHeyApiProgram(): Promise<void> {
	const { createClient } = await import("@hey-api/openapi-ts");
	await createClient({
		input: OPENAPI,
		output: { path: join(project, "hey-api"), importFileExtension: ".js" },
		plugins: ["@hey-api/client-fetch"],
		logs: { level: "silent" },
	});
	await writeFile(
		join(project, "hey-api-program.ts"),
		`import { client } from "./hey-api/client.gen.js";
import { getKnowledgeSource, listKnowledgeSources } from "./hey-api/sdk.gen.js";
import type { ErrorEnvelope } from "./hey-api/types.gen.js";

client.setConfig({ baseUrl: process.env.PLATFORM_BASE_URL, headers: { Authorization: \`Bearer \${process.env.PLATFORM_API_KEY}\` } });
const list = await listKnowledgeSources({ query: { limit: 10 } });
if (!list.data) throw new Error(\`list failed: \${list.response.status}\`);
const names: string[] = list.data.data.map((source) => source.name);
const missing = await getKnowledgeSource({ path: { sourceId: "ks_missing" } });
const error: ErrorEnvelope | undefined = missing.error;
if (!error) throw new Error("expected an error");
const code: string = error.code;
console.log(JSON.stringify({ names, status: missing.response.status, code }));
`,
	);
}

/** openapi-typescript's types with openapi-fetch, and a program using them. */
async function generateOpenapiFetchProgram(): Promise<void> {
	await mkdir(join(project, "openapi-typescript"), { recursive: true });
	await run("node", [join(ROOT, "node_modules", "openapi-typescript", "bin", "cli.js"), OPENAPI, "-o", join(project, "openapi-typescript", "schema.d.ts")]);
	await writeFile(
		join(project, "openapi-fetch-program.ts"),
		`import createClient from "openapi-fetch";
import type { components, paths } from "./openapi-typescript/schema.js";

const client = createClient<paths>({ baseUrl: process.env.PLATFORM_BASE_URL, headers: { Authorization: \`Bearer \${process.env.PLATFORM_API_KEY}\` } });
const list = await client.GET("/knowledge/sources", { params: { query: { limit: 10 } } });
if (!list.data) throw new Error(\`list failed: \${list.response.status}\`);
const names: string[] = list.data.data.map((source) => source.name);
const missing = await client.GET("/knowledge/sources/{sourceId}", { params: { path: { sourceId: "ks_missing" } } });
const error: components["schemas"]["ErrorEnvelope"] | undefined = missing.error;
if (!error) throw new Error("expected an error");
const code: string = error.code;
console.log(JSON.stringify({ names, status: missing.response.status, code }));
`,
	);
}

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
	const response = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Seen by third parties" } });
	expect(response.status).toBe(201);
	project = await mkdtemp(join(tmpdir(), "third-party-clients-"));
	await symlink(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
	await writeFile(join(project, "package.json"), JSON.stringify({ private: true, type: "module" }));
	await generateHeyApiProgram();
	await generateOpenapiFetchProgram();
	await compile(["hey-api-program", "openapi-fetch-program"]);
}, 180_000);

afterAll(async () => {
	if (project) await rm(project, { recursive: true, force: true });
	await platform?.stop();
});

describe("clients generated from openapi.yaml by third-party generators", () => {
	it("@hey-api/openapi-ts: compiles under strict tsc, lists sources and gets a typed NOT_FOUND", async () => {
		expect(await runProgram("hey-api-program")).toEqual({ names: ["Seen by third parties"], status: 404, code: "NOT_FOUND" });
	});

	it("openapi-typescript with openapi-fetch: compiles under strict tsc, lists sources and gets a typed NOT_FOUND", async () => {
		expect(await runProgram("openapi-fetch-program")).toEqual({ names: ["Seen by third parties"], status: 404, code: "NOT_FOUND" });
	});
});
