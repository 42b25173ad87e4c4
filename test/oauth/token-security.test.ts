import { generateKeyPair, importJWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import { loadSigningKeys } from "../../server/oauth/signing-keys";
import { authorize, callMcp, connectMcpClient, CookieJar, exchangeCode, readTokens, refresh, registerClient } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";

async function whoamiStatus(platform: TestPlatform, accessToken: string): Promise<number> {
	const response = await callMcp(platform.url, accessToken, "tools/call", { name: "whoami", arguments: {} });
	await response.body?.cancel();
	return response.status;
}

describe("authorization requests: PKCE, redirect URIs, codes, consent", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	const email = `member-${Date.now()}@example.com`;
	const viewerEmail = `viewer-${Date.now()}@example.com`;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		await createUser(platform.operator(), { email: viewerEmail, password: PASSWORD, organizationId: workspace.organizationId, role: "viewer" });
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("refuses an authorization request without a PKCE challenge, or with the plain method", async () => {
		const client = await registerClient(platform.url);
		for (const parameters of [
			{ code_challenge: undefined, code_challenge_method: undefined },
			{ code_challenge: "a".repeat(43), code_challenge_method: "plain" },
		]) {
			const { redirect } = await authorize(platform.url, { email, password: PASSWORD, client, authorizationParameters: parameters });
			expect(redirect.searchParams.get("error")).toBe("invalid_request");
			expect(redirect.searchParams.get("code")).toBeNull();
			expect(redirect.searchParams.get("iss")).toBe(platform.services.settings.publicBaseUrl);
		}
	});

	it("refuses a code exchange without the verifier or with another one", async () => {
		const { redirect, client } = await authorize(platform.url, { email, password: PASSWORD });
		const code = redirect.searchParams.get("code") as string;
		const missing = await exchangeCode(platform.url, client, code, undefined);
		expect(missing.status).toBe(400);
		expect(await missing.json()).toMatchObject({ error: "invalid_grant" });
	});

	it("refuses a redirect URI one character off the registered one, on a page that sends nobody anywhere", async () => {
		const client = await registerClient(platform.url, { redirectUri: "http://127.0.0.1:8976/callback" });
		const url = new URL("/oauth/authorize", platform.url);
		for (const [name, value] of Object.entries({
			response_type: "code",
			client_id: client.clientId,
			redirect_uri: "http://127.0.0.1:8976/callbacks",
			code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
			code_challenge_method: "S256",
			scope: "mcp:read",
		})) url.searchParams.set(name, value);
		const response = await fetch(url, { redirect: "manual" });
		expect(response.status).toBe(400);
		expect(response.headers.get("location")).toBeNull();
		expect(response.headers.get("content-type")).toMatch(/^text\/html/);
		const page = await response.text();
		expect(page).toContain("did not register");
		expect(page).not.toMatch(/at \w+ \(|node_modules/);
	});

	it("accepts a code once: a second exchange is refused and kills what the first one issued", async () => {
		const { redirect, verifier, client } = await authorize(platform.url, { email, password: PASSWORD });
		const code = redirect.searchParams.get("code") as string;
		const first = await readTokens(await exchangeCode(platform.url, client, code, verifier));
		expect(await whoamiStatus(platform, first.accessToken)).toBe(200);
		const second = await exchangeCode(platform.url, client, code, verifier);
		expect(second.status).toBe(400);
		expect(await second.json()).toMatchObject({ error: "invalid_grant" });
		expect(await whoamiStatus(platform, first.accessToken)).toBe(401);
		expect((await refresh(platform.url, client, first.refreshToken)).status).toBe(400);
	});

	it("sends access_denied, with iss, to the client when the user denies", async () => {
		const { redirect } = await authorize(platform.url, { email, password: PASSWORD, deny: true });
		expect(redirect.searchParams.get("error")).toBe("access_denied");
		expect(redirect.searchParams.get("iss")).toBe(platform.services.settings.publicBaseUrl);
		expect(redirect.searchParams.get("state")).toEqual(expect.any(String));
	});

	it("offers a viewer read access only, and refuses write access posted anyway", async () => {
		const jar = new CookieJar();
		await expect(authorize(platform.url, { email: viewerEmail, password: PASSWORD, scopes: ["mcp:write"], jar })).rejects.toThrow(/answered 403[\s\S]*cannot use mcp:write/);
		const tokens = await connectMcpClient(platform.url, { email: viewerEmail, password: PASSWORD });
		expect(tokens.scope).toBe("mcp:read");
	});

	it("refuses a consent form without its CSRF token", async () => {
		const client = await registerClient(platform.url);
		const jar = new CookieJar();
		const url = new URL("/oauth/authorize", platform.url);
		for (const [name, value] of Object.entries({
			response_type: "code",
			client_id: client.clientId,
			redirect_uri: client.redirectUri,
			code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
			code_challenge_method: "S256",
			scope: "mcp:read",
		})) url.searchParams.set(name, value);
		const started = await fetch(url, { redirect: "manual" });
		jar.store(started);
		const interaction = new URL(started.headers.get("location") as string, platform.url);
		const response = await fetch(new URL(`${interaction.pathname}/sign-in`, platform.url), {
			method: "POST",
			headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({ email, password: PASSWORD }),
			redirect: "manual",
		});
		expect(response.status).toBe(403);
		expect(await response.text()).toContain("This form was not sent from this page");
	});

	it("throttles failed sign-ins per email: after five, even the right password is refused for a while", async () => {
		const throttled = `throttled-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: throttled, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		for (let attempt = 0; attempt < 5; attempt++) {
			await expect(authorize(platform.url, { email: throttled, password: "wrong password!" })).rejects.toThrow(/answered 401[\s\S]*do not match/);
		}
		await expect(authorize(platform.url, { email: throttled, password: PASSWORD })).rejects.toThrow(/answered 429[\s\S]*Too many failed sign-ins/);
		// Another account is not affected.
		expect((await connectMcpClient(platform.url, { email, password: PASSWORD })).accessToken).toEqual(expect.any(String));
	});
});

describe("tokens: rotation, reuse, revocation, expiry, audience", () => {
	let platform: TestPlatform;
	let strict: TestPlatform;
	let email: string;
	let strictEmail: string;

	beforeAll(async () => {
		[platform, strict] = await Promise.all([startTestPlatform(), startTestPlatform({ oauth: { refreshReuseGraceSeconds: 0 } })]);
		const [workspace, strictWorkspace] = await Promise.all([platform.createWorkspace(), strict.createWorkspace()]);
		email = `user-${Date.now()}@example.com`;
		strictEmail = `strict-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "admin" });
		await createUser(strict.operator(), { email: strictEmail, password: PASSWORD, organizationId: strictWorkspace.organizationId, role: "admin" });
	});
	afterAll(async () => {
		await Promise.all([platform?.stop(), strict?.stop()]);
	});

	it("rotates the refresh token on every use; within the grace window the previous one yields an access token only", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const rotated = await readTokens(await refresh(platform.url, tokens.client, tokens.refreshToken));
		expect(rotated.refreshToken).toEqual(expect.any(String));
		expect(rotated.refreshToken).not.toBe(tokens.refreshToken);
		expect(await whoamiStatus(platform, rotated.accessToken)).toBe(200);

		const again = await refresh(platform.url, tokens.client, tokens.refreshToken);
		expect(again.status).toBe(200);
		const body = (await again.json()) as Record<string, unknown>;
		expect(body.access_token).toEqual(expect.any(String));
		expect(body.refresh_token).toBeUndefined();
		expect(await whoamiStatus(platform, body.access_token as string)).toBe(200);
		// The rotated token still works: the grace use killed nothing.
		expect((await refresh(platform.url, tokens.client, rotated.refreshToken)).status).toBe(200);
	});

	it("with no grace window (OAUTH_REFRESH_REUSE_GRACE_SECONDS=0), reusing a refresh token revokes the whole grant", async () => {
		const tokens = await connectMcpClient(strict.url, { email: strictEmail, password: PASSWORD });
		const rotated = await readTokens(await refresh(strict.url, tokens.client, tokens.refreshToken));
		const reuse = await refresh(strict.url, tokens.client, tokens.refreshToken);
		expect(reuse.status).toBe(400);
		expect(await reuse.json()).toMatchObject({ error: "invalid_grant" });
		// Everything of the grant is gone: the rotated refresh token and the unexpired access token.
		expect((await refresh(strict.url, tokens.client, rotated.refreshToken)).status).toBe(400);
		expect(await whoamiStatus(strict, rotated.accessToken)).toBe(401);
	});

	it("revoking a connection stops its unexpired access token on the next request and invalidates the refresh token", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		expect(await whoamiStatus(platform, tokens.accessToken)).toBe(200);
		const [connection] = (await platform.orm.em.getConnection().execute("select id from oauth_connections where client_id = ?", [tokens.client.clientId])) as { id: string }[];
		await revokeConnection(platform.operator(), { id: connection.id });
		const response = await callMcp(platform.url, tokens.accessToken, "tools/list");
		expect(response.status).toBe(401);
		expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
		expect((await refresh(platform.url, tokens.client, tokens.refreshToken)).status).toBe(400);
	});

	it("refuses an expired token, a token for another audience, and one signed by a key it never published", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const claims = JSON.parse(Buffer.from(tokens.accessToken.split(".")[1], "base64url").toString()) as Record<string, unknown>;
		const [signingKey] = await loadSigningKeys(platform.orm, platform.services.secrets);
		const key = await importJWK(signingKey, "ES256");
		const forge = (overrides: Record<string, unknown>, signWith = key, kid = signingKey.kid) =>
			new SignJWT({ ...claims, ...overrides }).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid }).sign(signWith);
		const now = Math.floor(Date.now() / 1000);

		expect(await whoamiStatus(platform, await forge({}))).toBe(200);
		const expired = await callMcp(platform.url, await forge({ iat: now - 1200, exp: now - 600 }), "tools/list");
		expect(expired.status).toBe(401);
		expect(expired.headers.get("www-authenticate")).toContain("expired");
		expect(await whoamiStatus(platform, await forge({ aud: "https://elsewhere.example/mcp" }))).toBe(401);
		expect(await whoamiStatus(platform, await forge({ iss: "https://elsewhere.example" }))).toBe(401);
		const { privateKey: stranger } = await generateKeyPair("ES256");
		expect(await whoamiStatus(platform, await forge({}, stranger))).toBe(401);
		expect(await whoamiStatus(platform, tokens.accessToken.slice(0, -2))).toBe(401);
	});

	it("issues short-lived access tokens bound to /mcp and to their connection", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const claims = JSON.parse(Buffer.from(tokens.accessToken.split(".")[1], "base64url").toString()) as Record<string, number | string>;
		expect(claims.aud).toBe(`${platform.services.settings.publicBaseUrl}/mcp`);
		expect(claims.iss).toBe(platform.services.settings.publicBaseUrl);
		expect(Number(claims.exp) - Number(claims.iat)).toBe(600);
		expect(tokens.expiresIn).toBe(600);
		expect(claims.connection_id).toMatch(/^conn_/);
	});
});
