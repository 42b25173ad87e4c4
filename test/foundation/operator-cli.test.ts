import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../server/shared/crypto";
import { type OperatorCliResult, runOperatorCli, runOperatorCliAsTyped, runOperatorCliOnDataDirectory } from "../helpers/operator-cli";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

const run = promisify(execFile);
let platform: TestPlatform;
let standIn: ProviderStandIn;

beforeAll(async () => {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
});
afterAll(async () => {
	await standIn?.close();
	await platform?.stop();
});

/** The CLI exactly as the README says (`npm run admin`, which builds first): used for bootstrap. */
async function npmRunAdmin(...args: string[]): Promise<OperatorCliResult> {
	try {
		const { stdout, stderr } = await run("npm", ["run", "--silent", "admin", "--", ...args, "--json"], {
			env: { ...process.env, DATABASE_URL: platform.databaseUrl, SECRET_KEY: TEST_SECRET_KEY },
		});
		return { code: 0, stdout, stderr };
	} catch (error) {
		const failure = error as OperatorCliResult;
		return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
	}
}

/** The same bundle, built once for the run: every other command. */
const admin = (...args: string[]) => runOperatorCli(platform.databaseUrl, args);
/** As a person types it: readable output. */
const adminAsTyped = (...args: string[]) => runOperatorCliAsTyped(platform.databaseUrl, args);

async function adminJson(...args: string[]) {
	const result = await (args[0] === "bootstrap" ? npmRunAdmin : admin)(...args);
	expect(result.stderr).toBe("");
	expect(result.code).toBe(0);
	return JSON.parse(result.stdout);
}

// Each CLI call is a fresh Node process (tsx + MikroORM start-up): slow on a loaded 2-core machine.
describe("operator CLI", { timeout: 120_000 }, () => {
	let bootstrap: { organizationId: string; workspaceId: string; userId: string; apiKey: string };

	it("bootstrap prints ids and an all-scope key that works against the running server", async () => {
		bootstrap = await adminJson("bootstrap", "--organization", "Acme", "--workspace", "Main", "--email", "Owner@Example.com", "--password", "a long password");
		expect(bootstrap).toEqual({
			organizationId: expect.stringMatching(/^org_/),
			workspaceId: expect.stringMatching(/^ws_/),
			userId: expect.stringMatching(/^usr_/),
			apiKey: expect.stringMatching(/^csk_live_[\w-]{43}$/),
		});
		const write = await platform.request("POST", "/knowledge/sources", { key: bootstrap.apiKey, body: { name: "From CLI key" } });
		expect(write.status).toBe(201);

		const sql = platform.orm.em.getConnection();
		const [user] = await sql.execute("select email, password_hash from users where id = ?", [bootstrap.userId]);
		expect(user.email).toBe("owner@example.com");
		expect(user.password_hash).toMatch(/^scrypt\$/);
		expect(user.password_hash).not.toContain("a long password");
		const [membership] = await sql.execute("select role from memberships where user_id = ?", [bootstrap.userId]);
		expect(membership.role).toBe("owner");
		const environments = await sql.execute("select slug from environments where workspace_id = ?", [bootstrap.workspaceId]);
		expect(environments.map((row) => row.slug)).toEqual(["production"]);
		const keys = await sql.execute("select key_hash, key_prefix from api_keys where workspace_id = ?", [bootstrap.workspaceId]);
		expect(JSON.stringify(keys)).not.toContain(bootstrap.apiKey);
		expect(bootstrap.apiKey.startsWith(keys[0].key_prefix)).toBe(true);
	});

	it("api-key create honours scopes (runtime:execute by default) and revoke works on the next request", async () => {
		const defaults = await adminJson("api-key", "create", "--workspace", bootstrap.workspaceId, "--name", "default");
		expect(defaults.scopes).toEqual(["runtime:execute"]);
		expect((await platform.request("GET", "/knowledge/sources", { key: defaults.key })).status).toBe(403);

		const reader = await adminJson("api-key", "create", "--workspace", bootstrap.workspaceId, "--scopes", "knowledge:read", "--name", "reader");
		expect(reader).toEqual({
			id: expect.stringMatching(/^key_/),
			key: expect.stringMatching(/^csk_live_/),
			keyPrefix: expect.any(String),
			name: "reader",
			scopes: ["knowledge:read"],
			workspaceId: bootstrap.workspaceId,
		});
		const listed = await adminJson("api-key", "list", "--workspace", bootstrap.workspaceId);
		expect(listed.apiKeys.map((key: { name: string }) => key.name).sort()).toEqual(["Bootstrap key", "default", "reader"]);
		expect(JSON.stringify(listed)).not.toContain(reader.key);
		expect((await platform.request("GET", "/knowledge/sources", { key: reader.key })).status).toBe(200);

		await adminJson("api-key", "revoke", "--id", reader.id);
		const after = await platform.request("GET", "/knowledge/sources", { key: reader.key });
		expect(after.status).toBe(401);
		expect((await after.json()).code).toBe("INVALID_CREDENTIALS");
		const withRevoked = await adminJson("api-key", "list", "--workspace", bootstrap.workspaceId, "--include-revoked");
		expect(withRevoked.apiKeys.find((key: { id: string }) => key.id === reader.id).revokedAt).toEqual(expect.any(String));
		expect((await adminJson("api-key", "list", "--workspace", bootstrap.workspaceId)).apiKeys).toHaveLength(2);
	});

	it("provider-credential set stores the key encrypted, never prints it, and accepts a base URL for any provider", async () => {
		const secret = "sk-proj-very-secret-value-1234";
		const result = await admin("provider-credential", "set", "--workspace", bootstrap.workspaceId, "--provider", "mistral", "--api-key", secret, "--base-url", "http://127.0.0.1:9/v1");
		expect(result.code).toBe(0);
		expect(result.stdout).not.toContain(secret);
		const printed = JSON.parse(result.stdout);
		expect(printed).toMatchObject({ provider: "mistral", apiKeyHint: "1234", baseUrl: "http://127.0.0.1:9/v1" });

		const [row] = await platform.orm.em.getConnection().execute("select encrypted_api_key from provider_credentials where workspace_id = ?", [bootstrap.workspaceId]);
		expect(row.encrypted_api_key).not.toContain(secret);
		expect(new SecretBox(TEST_SECRET_KEY).decrypt(row.encrypted_api_key)).toBe(secret);
	});

	it("user create adds a member with the role", async () => {
		const created = await adminJson("user", "create", "--email", "viewer@example.com", "--password", "another long one", "--organization", bootstrap.organizationId, "--role", "viewer");
		expect(created).toMatchObject({ userId: expect.stringMatching(/^usr_/), role: "viewer" });
	});

	it("errors go to stderr as JSON with a non-zero exit, and change nothing", async () => {
		const countKeys = async () => (await platform.orm.em.getConnection().execute("select count(*)::int as n from api_keys"))[0].n;
		const before = await countKeys();

		// A value outside a flag's listed choices is wrong usage (2), named like any other.
		const badScope = await admin("api-key", "create", "--workspace", bootstrap.workspaceId, "--scopes", "runtime:execute,admin:everything");
		expect(badScope.code).toBe(2);
		expect(badScope.stdout).toBe("");
		expect(JSON.parse(badScope.stderr).error).toMatchObject({ code: "USAGE", fields: [{ field: "--scopes" }] });

		const unknownWorkspace = await admin("api-key", "create", "--workspace", "ws_nope", "--name", "x");
		expect(JSON.parse(unknownWorkspace.stderr).error.code).toBe("NOT_FOUND");

		const badRole = await admin("user", "create", "--email", "x@example.com", "--password", "long enough pw", "--organization", bootstrap.organizationId, "--role", "emperor");
		expect(badRole.code).toBe(2);
		expect(JSON.parse(badRole.stderr).error.fields[0].field).toBe("--role");

		// What the use case refuses is exit 1, its fields named by the flags they came from.
		const badEmail = await admin("user", "create", "--email", "not-an-email", "--password", "long enough pw", "--organization", bootstrap.organizationId, "--role", "viewer");
		expect(badEmail.code).toBe(1);
		expect(JSON.parse(badEmail.stderr).error).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "--email", issue: "Not an email address" }] });

		const usage = await admin("frobnicate");
		expect(usage.code).toBe(2);
		expect(JSON.parse(usage.stderr).error.code).toBe("USAGE");

		const duplicate = await admin("bootstrap", "--organization", "B", "--workspace", "W", "--email", "owner@example.com", "--password", "a long password");
		expect(duplicate.code).not.toBe(0);
		const organizations = await platform.orm.em.getConnection().execute("select name from organizations where name = 'B'");
		expect(organizations).toEqual([]);
		expect(await countKeys()).toBe(before);
	});

	it("assistants, drafts, versions, environments and deployments can be created and read back", async () => {
		const workspace = bootstrap.workspaceId;
		await adminJson("assistant", "create", "--workspace", workspace, "--slug", "helper", "--name", "Helper");
		const listed = await adminJson("assistant", "list", "--workspace", workspace);
		expect(listed).toEqual({ assistants: [expect.objectContaining({ slug: "helper", name: "Helper", archived: false, description: null })] });

		// Readable by default: a table with a header, one row per assistant.
		const table = await adminAsTyped("assistant", "list", "--workspace", workspace);
		expect(table.code).toBe(0);
		const [header, row, ...others] = table.stdout.trimEnd().split("\n");
		expect(header.split(/\s{2,}/)).toEqual(["SLUG", "NAME", "ARCHIVED", "UPDATED AT", "ID"]);
		expect(row.split(/\s{2,}/).slice(0, 3)).toEqual(["helper", "Helper", "false"]);
		expect(others).toEqual([]);

		const staging = await adminJson("environment", "create", "--workspace", workspace, "--slug", "staging", "--name", "Staging", "--description", "Try here first");
		expect(staging).toMatchObject({ slug: "staging", name: "Staging", description: "Try here first" });
		const environments = await adminJson("environment", "list", "--workspace", workspace);
		expect(environments.environments.map((environment: { slug: string }) => environment.slug)).toEqual(["production", "staging"]);

		await adminJson("provider-credential", "set", "--workspace", workspace, "--provider", "openai", "--api-key", "sk-cli-test", "--base-url", standIn.baseUrl);
		const draft = await adminJson("assistant", "draft", "update", "--workspace", workspace, "--slug", "helper", "--provider", "openai", "--model", "gpt-4o-mini", "--system-prompt", "Be brief.");
		expect(draft.config).toMatchObject({ provider: "openai", model: "gpt-4o-mini", systemPrompt: "Be brief." });
		expect((await adminJson("assistant", "draft", "get", "--workspace", workspace, "--slug", "helper")).config.systemPrompt).toBe("Be brief.");
		await adminJson("assistant", "version", "create", "--workspace", workspace, "--slug", "helper", "--note", "first");
		expect((await adminJson("assistant", "version", "list", "--workspace", workspace, "--slug", "helper")).versions).toEqual([expect.objectContaining({ version: 1, note: "first" })]);
		expect(await adminJson("assistant", "publish", "--workspace", workspace, "--slug", "helper", "--version", "1", "--environment", "staging")).toMatchObject({ environment: "staging", version: 1 });

		// Staging, created from the CLI, serves at once.
		standIn.script({ kind: "completion", content: "Hello from staging" });
		const served = await platform.request("POST", "/runtime/assistants/helper", { key: bootstrap.apiKey, body: { input: "Hi", environment: "staging" } });
		expect(served.status).toBe(200);
		expect((await served.json()).message.content).toBe("Hello from staging");
		const assistant = await adminJson("assistant", "get", "--workspace", workspace, "--slug", "helper");
		expect(assistant).toMatchObject({ latestVersion: 1, deployments: [expect.objectContaining({ environment: "staging", version: 1 })] });
		const history = await adminJson("assistant", "deployment", "list", "--workspace", workspace, "--slug", "helper");
		expect(history.deployments).toEqual([expect.objectContaining({ environment: "staging", action: "publish", version: 1, previousVersion: null })]);

		const refused = await admin("environment", "delete", "--workspace", workspace, "--slug", "staging");
		expect(refused.code).toBe(1);
		expect(JSON.parse(refused.stderr).error.code).toBe("INVALID_REQUEST");
		const badVersion = await admin("assistant", "version", "get", "--workspace", workspace, "--slug", "helper", "--version", "first");
		expect(badVersion.code).toBe(1);
		expect(JSON.parse(badVersion.stderr).error).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "--version" }] });
	}, 300_000);

	it("trace list and trace get show the workspace's generations", async () => {
		const workspace = bootstrap.workspaceId;
		await adminJson("provider-credential", "set", "--workspace", workspace, "--provider", "openai", "--api-key", "sk-cli-test", "--base-url", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "Traced answer" });
		const executed = await platform.request("POST", "/runtime/execute", {
			key: bootstrap.apiKey,
			body: { providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Trace me" }] },
		});
		expect(executed.status).toBe(200);
		// Traces are written in the background: wait for this one before reading through the CLI.
		const sql = platform.orm.em.getConnection();
		await expect.poll(async () => (await sql.execute("select count(*)::int as n from traces where workspace = ? and kind = 'execute'", [workspace]))[0].n, { timeout: 10_000 }).toBe(1);

		const listed = await adminJson("trace", "list", "--workspace", workspace, "--kind", "execute");
		expect(listed).toEqual({ traces: [expect.objectContaining({ kind: "execute", model: "gpt-4o-mini", principalType: "api_key", errorCode: null })], nextBefore: null });
		expect((await adminJson("trace", "list", "--workspace", workspace, "--kind", "execute", "--failed")).traces).toEqual([]);
		const traceId = listed.traces[0].id as string;
		const trace = await adminJson("trace", "get", "--workspace", workspace, "--trace", traceId);
		expect(trace).toMatchObject({ id: traceId, output: "Traced answer" });

		const table = await adminAsTyped("trace", "list", "--workspace", workspace, "--kind", "execute");
		expect(table.stdout.split("\n")[0]).toMatch(/^ID +CREATED AT +KIND +MODEL/);
		expect(table.stdout).toContain(traceId);
		const readable = await adminAsTyped("trace", "get", "--workspace", workspace, "--trace", traceId);
		expect(readable.stdout).toContain(`id: ${traceId}\n`);
		expect(readable.stdout).toContain("output: Traced answer\n");
	}, 300_000);

	it("on the embedded database (no DATABASE_URL) a refused command still exits 1", async () => {
		const dataDirectory = await mkdtemp(join(tmpdir(), "operator-cli-embedded-"));
		// As root, the cluster runs as the postgres user, who must reach it.
		await chmod(dataDirectory, 0o755);
		try {
			const refused = await runOperatorCliOnDataDirectory(dataDirectory, ["workspace", "list", "--organization", "org_missing"]);
			expect(JSON.parse(refused.stderr).error.code).toBe("NOT_FOUND");
			expect(refused.code).toBe(1);
		} finally {
			await rm(dataDirectory, { recursive: true, force: true });
		}
	}, 300_000);
});
