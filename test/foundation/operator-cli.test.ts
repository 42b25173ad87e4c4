import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../server/shared/crypto";
import { type OperatorCliResult, runOperatorCli } from "../helpers/operator-cli";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform } from "../helpers/platform";

const run = promisify(execFile);
let platform: TestPlatform;

beforeAll(async () => {
	platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

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
		expect(reader).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^csk_live_/), scopes: ["knowledge:read"] });
		expect((await platform.request("GET", "/knowledge/sources", { key: reader.key })).status).toBe(200);

		await adminJson("api-key", "revoke", "--id", reader.id);
		const after = await platform.request("GET", "/knowledge/sources", { key: reader.key });
		expect(after.status).toBe(401);
		expect((await after.json()).code).toBe("INVALID_CREDENTIALS");
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

		const badScope = await admin("api-key", "create", "--workspace", bootstrap.workspaceId, "--scopes", "runtime:execute,admin:everything");
		expect(badScope.code).not.toBe(0);
		expect(badScope.stdout).toBe("");
		expect(JSON.parse(badScope.stderr).error).toMatchObject({ code: "VALIDATION_ERROR", fields: [{ field: "scopes" }] });

		const unknownWorkspace = await admin("api-key", "create", "--workspace", "ws_nope", "--name", "x");
		expect(JSON.parse(unknownWorkspace.stderr).error.code).toBe("NOT_FOUND");

		const badRole = await admin("user", "create", "--email", "x@example.com", "--password", "long enough pw", "--organization", bootstrap.organizationId, "--role", "emperor");
		expect(JSON.parse(badRole.stderr).error.fields[0].field).toBe("role");

		const usage = await admin("frobnicate");
		expect(usage.code).toBe(2);
		expect(JSON.parse(usage.stderr).error.code).toBe("USAGE");

		const duplicate = await admin("bootstrap", "--organization", "B", "--workspace", "W", "--email", "owner@example.com", "--password", "a long password");
		expect(duplicate.code).not.toBe(0);
		const organizations = await platform.orm.em.getConnection().execute("select name from organizations where name = 'B'");
		expect(organizations).toEqual([]);
		expect(await countKeys()).toBe(before);
	});
});
