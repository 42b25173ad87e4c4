/**
 * The official MCP Inspector, in CLI mode, as the README tells users to run it: `@modelcontextprotocol/inspector
 * --cli <url>/mcp --transport http --header "Authorization: Bearer <token>"`, with a token from the real OAuth
 * flow, and with no token, when the Inspector runs that flow itself. It is installed at an exact version into a cache under node_modules, once per checkout, rather than as a
 * devDependency: its install is about 110 MB (web and terminal UIs, zod 4, vite) we do not otherwise need, and its
 * `engines` asks for Node 22.19 although the CLI runs on the Node 20 CI uses.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { access, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import { listenOnLoopback } from "../helpers/loopback-server";
import { connectMcpClient, signInAndConsent } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const INSPECTOR_VERSION = "2.12.0";
const CACHE = join(ROOT, "node_modules", ".cache");
const INSTALLED = join(CACHE, `mcp-inspector-${INSPECTOR_VERSION}`);
const LAUNCHER = join(INSTALLED, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
const PASSWORD = "correct horse battery";

/** The Inspector at its pinned version, installed beside the tests unless an earlier run left it there. */
async function installInspector(): Promise<void> {
	if (await exists(LAUNCHER)) return;
	await mkdir(CACHE, { recursive: true });
	// Installed aside then renamed into place, so that an interrupted install never looks like a finished one.
	const staging = await mkdtemp(join(CACHE, "mcp-inspector-staging-"));
	try {
		await writeFile(join(staging, "package.json"), JSON.stringify({ name: "mcp-inspector", private: true }));
		await run("npm", ["install", "--no-audit", "--no-fund", "--save-exact", `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`], { cwd: staging });
		await rename(staging, INSTALLED).catch(async (error: NodeJS.ErrnoException) => {
			// Another test run finished the same install first: theirs is as good as ours.
			if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
		});
	} finally {
		await rm(staging, { recursive: true, force: true });
	}
}

async function exists(path: string): Promise<boolean> {
	return access(path).then(
		() => true,
		() => false,
	);
}

interface InspectorRun {
	exitCode: number;
	stdout: string;
	stderr: string;
}

let home: string;

/**
 * `inspector --cli <url> --transport http --header "Authorization: Bearer <token>" ...args`, with one JSON object
 * on stdout (`--format json`), nothing but an error envelope on stderr (`--quiet`: no notices about where secrets
 * are kept) and never an interactive login when the token is refused (`--stored-auth-only`).
 */
async function inspector(url: string, accessToken: string, ...args: string[]): Promise<InspectorRun> {
	const argv = [LAUNCHER, "--cli", url, "--transport", "http", "--header", `Authorization: Bearer ${accessToken}`, "--format", "json", "--quiet", "--stored-auth-only", ...args];
	try {
		// A home of its own: the Inspector keeps a catalog and stored OAuth state there. Secrets in memory: there is
		// no OS keychain here.
		const { stdout, stderr } = await run(process.execPath, argv, { env: { PATH: process.env.PATH, HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory" }, timeout: 60_000 });
		return { exitCode: 0, stdout, stderr };
	} catch (error) {
		const failure = error as { code?: number | string; stdout?: string; stderr?: string };
		if (typeof failure.code !== "number") throw error;
		return { exitCode: failure.code, stdout: failure.stdout ?? "", stderr: failure.stderr ?? "" };
	}
}

function json(result: InspectorRun): Record<string, unknown> {
	if (result.exitCode !== 0) throw new Error(`the Inspector exited with ${result.exitCode}:\n${result.stdout}${result.stderr}`);
	return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** A port nothing listens on now, for the Inspector's OAuth callback listener. */
async function freePort(): Promise<number> {
	const probe = await listenOnLoopback(createServer());
	await probe.close();
	return probe.port;
}

/**
 * The Inspector with no token: it runs the OAuth flow itself (discovery, dynamic registration, PKCE) and prints the
 * authorization URL; `person` plays the browser from that URL to the Inspector's callback listener.
 */
async function inspectorWithLogin(url: string, person: (authorizationUrl: URL, callbackUrl: string) => Promise<URL>, ...args: string[]): Promise<InspectorRun> {
	const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
	const argv = [LAUNCHER, "--cli", url, "--transport", "http", "--callback-url", callbackUrl, "--format", "json", ...args];
	// No terminal here: MCP_AUTO_OPEN_ENABLED lets the login start anyway, and BROWSER=true makes "opening" the URL a no-op.
	const env = { PATH: process.env.PATH, HOME: home, MCP_AUTO_OPEN_ENABLED: "true", BROWSER: "true", MCP_INSPECTOR_SECRET_STORE: "memory" };
	const child = spawn(process.execPath, argv, { env, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
	let stdout = "";
	let stderr = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
	// "close", not "exit": stdout is complete only once its stream has closed.
	const exited = once(child, "close") as Promise<[number | null, NodeJS.Signals | null]>;
	const prompted = new Promise<URL>((resolve, reject) => {
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
			const match = /Please navigate to: (\S+)/.exec(stderr);
			if (match) resolve(new URL(match[1]));
		});
		void exited.then(() => reject(new Error(`the Inspector exited without asking for a login:\n${stdout}${stderr}`)));
	});
	try {
		const redirect = await person(await prompted, callbackUrl);
		// The browser lands on the Inspector's listener, which hands the code to the waiting CLI.
		expect((await fetch(redirect)).status).toBe(200);
	} catch (error) {
		child.kill();
		throw error;
	}
	const [exitCode] = await exited;
	return { exitCode: exitCode ?? -1, stdout, stderr };
}

describe("the MCP Inspector's CLI against /mcp", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let email: string;
	beforeAll(async () => {
		home = await mkdtemp(join(tmpdir(), "mcp-inspector-home-"));
		const started = async () => {
			platform = await startTestPlatform();
			workspace = await platform.createWorkspace();
			email = `inspector-${Date.now()}@example.com`;
			await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		};
		await Promise.all([started(), installInspector()]);
	}, 240_000);
	afterAll(async () => {
		await platform?.stop();
		if (home) await rm(home, { recursive: true, force: true });
	});

	it("lists every tool of the registry and calls whoami with a token from the OAuth flow", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, scopes: ["mcp:write"] });
		const url = `${platform.url}/mcp`;

		const listed = json(await inspector(url, tokens.accessToken, "--method", "tools/list")) as { result: { tools: { name: string }[] } };
		expect(listed.result.tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());

		const called = json(await inspector(url, tokens.accessToken, "--method", "tools/call", "--tool-name", "whoami"));
		expect(called).not.toHaveProperty("result.isError", true);
		expect(called).toMatchObject({
			result: {
				structuredContent: {
					user: { email },
					clientId: tokens.client.clientId,
					organization: { id: workspace.organizationId },
					organizationId: workspace.organizationId,
					allOrganizations: false,
					scopes: ["mcp:read", "mcp:write"],
				},
			},
		});
	}, 120_000);

	it("runs the OAuth flow itself when given no token: registers, sends the person to sign in and consent, then calls whoami", async () => {
		// The URL the server calls itself: RFC 9728 has the client check the protected resource's metadata names it.
		const url = `${platform.url.replace("127.0.0.1", "localhost")}/mcp`;
		let authorizationUrl: URL | undefined;
		const called = json(
			await inspectorWithLogin(
				url,
				(authorization, callbackUrl) => {
					authorizationUrl = authorization;
					return signInAndConsent(authorization, callbackUrl, { email, password: PASSWORD, scopes: ["mcp:write"] });
				},
				...["--method", "tools/call", "--tool-name", "whoami"],
			),
		) as { result: { structuredContent: { clientId: string } } };
		expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
		expect(authorizationUrl?.searchParams.get("resource")).toBe(url);
		expect(called).toMatchObject({
			result: {
				structuredContent: { user: { email }, organizationId: workspace.organizationId, allOrganizations: false, scopes: ["mcp:read", "mcp:write"] },
			},
		});
		// The connection a person would see under Connected applications is the Inspector's own registration.
		const connections = await platform.orm.em.getConnection().execute("select client_name from oauth_connections where client_id = ?", [called.result.structuredContent.clientId]);
		expect(connections).toEqual([{ client_name: "MCP Inspector" }]);
	}, 120_000);

	it("fails with a revoked token and with one that was never issued", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const url = `${platform.url}/mcp`;
		expect(json(await inspector(url, tokens.accessToken, "--method", "tools/call", "--tool-name", "whoami"))).toMatchObject({ result: { structuredContent: { user: { email } } } });
		const [connection] = (await platform.orm.em.getConnection().execute("select id from oauth_connections where client_id = ?", [tokens.client.clientId])) as { id: string }[];
		await revokeConnection(platform.operator(), { id: connection.id });

		// Exit code 3 is the Inspector's "auth_required"; the message carries our 401 envelope.
		const revoked = await inspector(url, tokens.accessToken, "--method", "tools/list");
		expect(revoked).toMatchObject({ exitCode: 3, stdout: "" });
		expect(JSON.parse(revoked.stderr)).toMatchObject({ error: { code: "auth_required", message: expect.stringContaining("This connection was revoked") } });

		const forged = await inspector(url, "not-a-token", "--method", "tools/list");
		expect(forged).toMatchObject({ exitCode: 3, stdout: "" });
		expect(JSON.parse(forged.stderr)).toMatchObject({ error: { code: "auth_required", message: expect.stringContaining("The access token is not valid") } });
	}, 120_000);
});
