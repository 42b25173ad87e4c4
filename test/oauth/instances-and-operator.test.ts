import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeOrganization } from "../../server/modules/access/authorize";
import { createUseCaseContext } from "../../server/modules/platform-services";
import { createUser } from "../../server/modules/tenancy/create-user";
import { McpRequestAuthenticator } from "../../server/oauth/authenticate-mcp-request";
import { loadSigningKeys } from "../../server/modules/oauth/signing-keys";
import { SigningKeyRing } from "../../server/oauth/signing-key-ring";
import { type RunningPlatform, startPlatform } from "../../server/platform";
import { AppError } from "../../server/shared/app-error";
import { createLogger } from "../../server/shared/logger";
import { callMcp, connectMcpClient, readTokens, refresh } from "../helpers/oauth-flow";
import { signInToDashboard } from "../helpers/dashboard-session";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { runOperatorCli } from "../helpers/operator-cli";

const PASSWORD = "correct horse battery";

async function whoamiStatus(url: string, accessToken: string): Promise<number> {
	const response = await callMcp(url, accessToken, "tools/call", { name: "whoami", arguments: {} });
	await response.body?.cancel();
	return response.status;
}

describe("several instances on one database", { timeout: 120_000 }, () => {
	let first: TestPlatform;
	let second: RunningPlatform | undefined;
	let workspace: TestWorkspace;
	const email = `member-${Date.now()}@example.com`;

	/** Another server on the same database and SECRET_KEY, behind the same public address (as behind a load balancer). */
	const startAnother = () =>
		startPlatform({
			databaseUrl: first.databaseUrl,
			secretKey: TEST_SECRET_KEY,
			port: 0,
			host: "127.0.0.1",
			publicBaseUrl: first.services.settings.publicBaseUrl,
			dataDirectory: first.dataDirectory,
			logger: createLogger("silent"),
		});

	beforeAll(async () => {
		first = await startTestPlatform();
		workspace = await first.createWorkspace();
		await createUser(first.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
	});
	afterAll(async () => {
		await second?.close();
		await first?.stop();
	});

	it("publishes the same signing keys after a restart: a token issued before it is still accepted", async () => {
		const jwks = await (await fetch(`${first.url}/.well-known/jwks.json`)).json();
		const tokens = await connectMcpClient(first.url, { email, password: PASSWORD });
		second = await startAnother();
		expect(await (await fetch(`${second.url}/.well-known/jwks.json`)).json()).toEqual(jwks);
		expect(await whoamiStatus(second.url, tokens.accessToken)).toBe(200);
		await second.close();
		second = await startAnother();
		expect(await (await fetch(`${second.url}/.well-known/jwks.json`)).json()).toEqual(jwks);
		// Stored sealed: the private key is not in the table in clear.
		const [row] = (await first.orm.em.getConnection().execute("select encrypted_private_jwk from oauth_signing_keys")) as { encrypted_private_jwk: string }[];
		expect(row.encrypted_private_jwk).toMatch(/^v1:/);
		const [key] = await loadSigningKeys(first.orm, first.services.secrets);
		expect(row.encrypted_private_jwk).not.toContain(key.d as string);
	});

	it("accepts, refreshes and revokes through the other instance a token issued through one", async () => {
		second ??= await startAnother();
		const tokens = await connectMcpClient(first.url, { email, password: PASSWORD });
		expect(await whoamiStatus(second.url, tokens.accessToken)).toBe(200);

		const refreshed = await readTokens(await refresh(second.url, tokens.client, tokens.refreshToken));
		expect(await whoamiStatus(first.url, refreshed.accessToken)).toBe(200);

		// Revoked on the second instance through the dashboard's Connected applications, as a person would.
		const session = await signInToDashboard(second.url, email, PASSWORD);
		const listed = (await (await session.call(second.url, "GET", "/management/account/connections")).json()) as { data: { id: string; clientId: string }[] };
		const connection = listed.data.find((candidate) => candidate.clientId === tokens.client.clientId);
		expect(connection).toBeDefined();
		expect((await session.call(second.url, "DELETE", `/management/account/connections/${connection?.id}`)).status).toBe(200);

		expect(await whoamiStatus(first.url, refreshed.accessToken)).toBe(401);
		expect((await refresh(first.url, tokens.client, refreshed.refreshToken)).status).toBe(400);
		const after = (await (await session.call(first.url, "GET", "/management/account/connections")).json()) as { data: { id: string; revokedAt: string | null }[] };
		expect(after.data.find((candidate) => candidate.id === connection?.id)?.revokedAt).not.toBeNull();
	});
});

const admin = (platform: TestPlatform, ...args: string[]) => runOperatorCli(platform.databaseUrl, args);

// Each CLI call is a fresh Node process: slow on a loaded 2-core machine.
describe("operator CLI: connections and the organization's MCP administration switch", { timeout: 180_000 }, () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let userId: string;
	const email = `admin-${Date.now()}@example.com`;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		userId = (await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "admin" })).userId;
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("lists a user's connections and revokes one, effective on the token's next request", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, scopes: ["mcp:write"] });
		const listed = await admin(platform, "connection", "list", "--user", userId);
		expect(listed.code).toBe(0);
		const { data } = JSON.parse(listed.stdout) as { data: Record<string, unknown>[] };
		expect(data).toEqual([
			expect.objectContaining({ userId, clientId: tokens.client.clientId, clientName: "Test MCP client", organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"], revokedAt: null }),
		]);
		expect(data[0].lastUsedAt).toBeNull();
		expect(await whoamiStatus(platform.url, tokens.accessToken)).toBe(200);

		const revoked = await admin(platform, "connection", "revoke", "--id", data[0].id as string);
		expect(JSON.parse(revoked.stdout)).toEqual({ id: data[0].id, revoked: true });
		expect(await whoamiStatus(platform.url, tokens.accessToken)).toBe(401);
		const after = JSON.parse((await admin(platform, "connection", "list", "--user", userId)).stdout) as { data: { revokedAt: string | null; lastUsedAt: string | null }[] };
		expect(after.data[0].revokedAt).toEqual(expect.any(String));
		expect(after.data[0].lastUsedAt).toEqual(expect.any(String));

		const unknown = await admin(platform, "connection", "revoke", "--id", "conn_unknown");
		expect(unknown.code).toBe(1);
		expect(JSON.parse(unknown.stderr).error.code).toBe("NOT_FOUND");
	});

	it("disabling administration over MCP denies a connection holding mcp:admin, whatever the role; enabling restores it", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, scopes: ["mcp:admin"] });
		expect(tokens.scope.split(" ")).toContain("mcp:admin");
		const authenticator = new McpRequestAuthenticator(
			platform.services,
			platform.services.settings.publicBaseUrl,
			`${platform.services.settings.publicBaseUrl}/mcp`,
			new SigningKeyRing(platform.services),
		);
		const authentication = await authenticator.authenticate({ headers: { authorization: `Bearer ${tokens.accessToken}` } } as IncomingMessage);
		if (!authentication.ok) throw authentication.error;
		const context = () => createUseCaseContext(platform.services, authentication.principal);
		expect((await authorizeOrganization(context(), "administration:read")).organizationId).toBe(workspace.organizationId);

		const disabled = await admin(platform, "organization", "set", "--id", workspace.organizationId, "--mcp-admin", "disabled");
		expect(JSON.parse(disabled.stdout)).toEqual({ organizationId: workspace.organizationId, mcpAdministration: "disabled" });
		const refusal = await authorizeOrganization(context(), "administration:read").catch((error: unknown) => error);
		expect(refusal).toBeInstanceOf(AppError);
		expect(refusal).toMatchObject({ code: "FORBIDDEN", message: "An owner of this organization has disabled administration over MCP" });
		// Reading and writing are not administration: they keep working.
		expect(await whoamiStatus(platform.url, tokens.accessToken)).toBe(200);

		const wrong = await admin(platform, "organization", "set", "--id", workspace.organizationId, "--mcp-admin", "off");
		expect(wrong.code).toBe(2);
		await admin(platform, "organization", "set", "--id", workspace.organizationId, "--mcp-admin", "enabled");
		expect((await authorizeOrganization(context(), "administration:read")).organizationId).toBe(workspace.organizationId);
	});
});

describe("signing keys and page sessions across instances, without a restart", { timeout: 240_000 }, () => {
	let first: TestPlatform;
	let second: RunningPlatform;
	const email = `keys-${Date.now()}@example.com`;

	beforeAll(async () => {
		first = await startTestPlatform();
		const workspace = await first.createWorkspace();
		await createUser(first.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		second = await startPlatform({
			databaseUrl: first.databaseUrl,
			secretKey: TEST_SECRET_KEY,
			port: 0,
			host: "127.0.0.1",
			publicBaseUrl: first.services.settings.publicBaseUrl,
			dataDirectory: first.dataDirectory,
			logger: createLogger("silent"),
		});
	});
	afterAll(async () => {
		await second?.close();
		await first?.stop();
	});

	const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString()) as { kid: string }).kid;
	const publishedKids = async (url: string) => ((await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid).sort();

	it("signs with a rotated-in key at once, and refuses a retired key's tokens on the next request, on both instances", async () => {
		const before = await connectMcpClient(first.url, { email, password: PASSWORD });
		const oldKid = kidOf(before.accessToken);
		expect(await publishedKids(second.url)).toEqual([oldKid]);
		expect(await whoamiStatus(second.url, before.accessToken)).toBe(200);

		const rotation = await admin(first, "signing-key", "rotate");
		expect(rotation.code).toBe(0);
		const newKid = (JSON.parse(rotation.stdout) as { kid: string }).kid;
		for (const url of [first.url, second.url]) expect(await publishedKids(url)).toEqual([oldKid, newKid].sort());
		// Each instance signs with the new key from its next request; the old key's tokens still verify.
		const refreshedOnSecond = await readTokens(await refresh(second.url, before.client, before.refreshToken));
		expect(kidOf(refreshedOnSecond.accessToken)).toBe(newKid);
		const issuedOnFirst = await connectMcpClient(first.url, { email, password: PASSWORD });
		expect(kidOf(issuedOnFirst.accessToken)).toBe(newKid);
		for (const url of [first.url, second.url]) {
			expect(await whoamiStatus(url, before.accessToken)).toBe(200);
			expect(await whoamiStatus(url, refreshedOnSecond.accessToken)).toBe(200);
		}

		const retirement = await admin(first, "signing-key", "retire-old");
		expect(JSON.parse(retirement.stdout)).toEqual({ retired: [oldKid] });
		for (const url of [first.url, second.url]) {
			expect(await publishedKids(url)).toEqual([newKid]);
			expect(await whoamiStatus(url, before.accessToken)).toBe(401);
			expect(await whoamiStatus(url, refreshedOnSecond.accessToken)).toBe(200);
			expect(await whoamiStatus(url, issuedOnFirst.accessToken)).toBe(200);
		}
	});

	it("ends a dashboard session everywhere on sign-out: a copy of its cookie no longer works on any instance", async () => {
		const session = await signInToDashboard(first.url, email, PASSWORD);
		expect((await session.call(second.url, "GET", "/management/account/connections")).status).toBe(200);
		expect((await session.call(first.url, "DELETE", "/management/session")).status).toBe(200);
		for (const url of [first.url, second.url]) {
			expect((await session.call(url, "GET", "/management/session")).status).toBe(401);
			expect((await session.call(url, "GET", "/management/account/connections")).status).toBe(401);
		}
	});

});
