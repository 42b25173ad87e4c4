import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listConnections } from "../../server/modules/oauth/list-connections";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { createUser } from "../../server/modules/tenancy/create-user";
import { loadSigningKeys } from "../../server/modules/oauth/signing-keys";
import { authorize, callMcp, connectMcpClient, CookieJar, exchangeCode, jwtClaims, type OAuthClient, pageText, pkcePair, readTokens, refresh, registerClient, untilPast } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";

const PRESENTERS = 16;

/**
 * Presents one refresh token `count` times at once: the connections are opened first (one
 * request each), so the refreshes leave together and the server works on all of them at once.
 */
async function raceRefreshes(platform: TestPlatform, client: OAuthClient, refreshToken: string, count: number): Promise<(Record<string, unknown> & { status: number })[]> {
	const agent = new Agent({ connections: count, pipelining: 0 });
	try {
		await Promise.all(Array.from({ length: count }, async () => (await undiciFetch(`${platform.url}/healthz`, { dispatcher: agent })).arrayBuffer()));
		const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.clientId });
		const responses = await Promise.all(
			Array.from({ length: count }, () =>
				undiciFetch(`${platform.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form, dispatcher: agent }),
			),
		);
		return Promise.all(responses.map(async (response) => ({ status: response.status, ...((await response.json()) as Record<string, unknown>) })));
	} finally {
		await agent.close();
	}
}

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

	it("refuses an authorization request without a PKCE challenge, or with the plain method, on its own page", async () => {
		const client = await registerClient(platform.url);
		for (const parameters of [
			{ code_challenge: undefined, code_challenge_method: undefined },
			{ code_challenge: "a".repeat(43), code_challenge_method: "plain" },
		]) {
			await expect(authorize(platform.url, { email, password: PASSWORD, client, authorizationParameters: parameters })).rejects.toThrow(
				/\/oauth\/authorize answered 400[\s\S]*(PKCE|code_challenge)/,
			);
		}
	});

	it("never bounces a person to a registered client's address before they have seen our page (no open redirect)", async () => {
		const evil = await registerClient(platform.url, { redirectUri: "https://evil.example/landing" });
		const { challenge } = pkcePair();
		const valid = { response_type: "code", client_id: evil.clientId, redirect_uri: evil.redirectUri, code_challenge: challenge, code_challenge_method: "S256", scope: "mcp:read", state: "s" };
		const attempts: Record<string, string | undefined>[] = [
			{ code_challenge: undefined, code_challenge_method: undefined },
			{ prompt: "none" },
			{ prompt: "none", response_mode: "form_post" },
			{ prompt: "none", response_mode: "fragment" },
			{ code_challenge: "too-short" },
			{ resource: "https://elsewhere.example/mcp" },
			{ response_type: "token" },
			{ code_challenge_method: "plain", response_mode: "form_post" },
		];
		for (const attempt of attempts) {
			const url = new URL("/oauth/authorize", platform.url);
			for (const [name, value] of Object.entries({ ...valid, ...attempt })) if (value !== undefined) url.searchParams.set(name, value);
			const response = await fetch(url, { redirect: "manual" });
			const page = await response.text();
			expect({ attempt, status: response.status, location: response.headers.get("location") }).toEqual({ attempt, status: 400, location: null });
			expect(response.headers.get("content-type")).toMatch(/^text\/html/);
			expect(page).not.toContain("evil.example");
			expect(page).toContain("Nothing was shared");
		}
		// Once the person has seen our page and chosen, the client hears about it, as OAuth says.
		const { redirect } = await authorize(platform.url, { email, password: PASSWORD, client: evil, deny: true });
		expect(redirect.origin).toBe("https://evil.example");
		expect(redirect.searchParams.get("error")).toBe("access_denied");
	});

	it("registers only redirect URIs that say where they go: no user information, wildcards or plain http off loopback", async () => {
		const register = (redirectUri: string) =>
			fetch(`${platform.url}/oauth/register`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ client_name: "Redirect check", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
			});
		for (const refused of [
			"https://user:pw@evil.example/cb",
			"https://trusted.example@evil.example/cb",
			"https://*.example.com/cb",
			"https://app.example.com/*",
			"http://evil.example/cb",
			"http://192.168.1.10/cb",
			"http://127.0.0.1.evil.example/cb",
			"javascript:alert(1)",
			"data:text/html,hello",
			"https://app.example.com/cb#fragment",
		]) {
			const response = await register(refused);
			expect({ refused, status: response.status, body: await response.json() }).toMatchObject({ refused, status: 400, body: { error: "invalid_redirect_uri" } });
		}
		for (const accepted of [
			"http://127.0.0.1:8976/callback",
			"http://[::1]:8976/callback",
			"http://localhost:8976/callback",
			"https://app.example.com/callback",
			"com.example.app:/oauth2redirect",
			"cursor://anysphere.cursor-retrieval/oauth/callback",
		]) {
			const response = await register(accepted);
			expect({ accepted, status: response.status }).toEqual({ accepted, status: 201 });
			expect(((await response.json()) as { redirect_uris: string[] }).redirect_uris).toEqual([accepted]);
		}
	});

	it("names the redirect host plainly on the sign-in and consent pages", async () => {
		const client = await registerClient(platform.url, { redirectUri: "https://app.example.com/oauth/callback" });
		const pages: string[] = [];
		await authorize(platform.url, { email, password: PASSWORD, client, pages, deny: true });
		expect(pages.length).toBe(2);
		for (const page of pages) expect(pageText(page)).toContain("you will be sent to app.example.com");
	});

	it("no longer finds a client stored before the redirect URI rules whose redirect URI hides its host", async () => {
		const clientId = `legacy-${Date.now()}`;
		const redirectUri = "https://trusted.example@evil.example/cb";
		await platform.orm.em.getConnection().execute("insert into oauth_records (id, model, payload) values (?, 'Client', ?::jsonb)", [
			clientId,
			JSON.stringify({ client_id: clientId, client_name: "Legacy", redirect_uris: [redirectUri], token_endpoint_auth_method: "none", client_id_issued_at: Math.floor(Date.now() / 1000) }),
		]);
		const url = new URL("/oauth/authorize", platform.url);
		for (const [name, value] of Object.entries({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: pkcePair().challenge, code_challenge_method: "S256", prompt: "none" })) {
			url.searchParams.set(name, value);
		}
		const response = await fetch(url, { redirect: "manual" });
		expect(response.status).toBe(400);
		expect(response.headers.get("location")).toBeNull();
		expect(await response.text()).toContain("not registered");
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

		// A NUL in the email is refused as a form that cannot be used, not a failure of ours (it used to reach the query: 500).
		const page = await (await fetch(interaction, { headers: { cookie: jar.header() } })).text();
		const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
		const withNul = await fetch(new URL(`${interaction.pathname}/sign-in`, platform.url), {
			method: "POST",
			headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({ csrf, email: `${email}\u0000`, password: PASSWORD }),
			redirect: "manual",
		});
		expect(withNul.status).toBe(400);
		expect(await withNul.text()).toContain("cannot be used here");
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

	it("gives one refresh token exactly one successor, however many presenters race for it", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const connectionId = jwtClaims(tokens.accessToken).connection_id;
		// Round after round, all presenters race with the token the previous round's one successor.
		let presented = tokens.refreshToken;
		for (let round = 1; round <= 6; round++) {
			const bodies = await raceRefreshes(platform, tokens.client, presented, PRESENTERS);
			expect(bodies.map((body) => body.status)).toEqual(Array(PRESENTERS).fill(200));
			const successors = bodies.filter((body) => body.refresh_token !== undefined);
			expect({ round, successors: successors.length }).toEqual({ round, successors: 1 });
			// The others are within the grace window: an access token each, no branch of the family.
			for (const body of bodies.slice(0, 3)) expect(await whoamiStatus(platform, body.access_token as string)).toBe(200);
			const [{ count }] = (await platform.orm.em
				.getConnection()
				.execute("select count(*)::int as count from oauth_records r join oauth_connections c on c.grant_id = r.grant_id where c.id = ? and r.model = 'RefreshToken'", [
					connectionId,
				])) as { count: number }[];
			expect(count).toBe(round + 1);
			presented = successors[0].refresh_token as string;
		}
		expect((await refresh(platform.url, tokens.client, presented)).status).toBe(200);
	});

	it("with strict reuse detection, racing presenters are reuse: one successor, then the grant ends", async () => {
		for (let round = 0; round < 3; round++) {
			const tokens = await connectMcpClient(strict.url, { email: strictEmail, password: PASSWORD });
			const bodies = await raceRefreshes(strict, tokens.client, tokens.refreshToken, PRESENTERS);
			const issued = bodies.filter((body) => body.refresh_token !== undefined);
			expect(issued.length).toBe(1);
			expect(bodies.filter((body) => body.error === "invalid_grant").length).toBe(PRESENTERS - 1);
			expect((await refresh(strict.url, tokens.client, issued[0].refresh_token as string)).status).toBe(400);
		}
	});

	it("accepts `resource` on a refresh as MCP clients send it, and refuses any other resource with invalid_target", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD });
		const resource = `${platform.services.settings.publicBaseUrl}/mcp`;
		const elsewhere = await refresh(platform.url, tokens.client, tokens.refreshToken, { resource: "https://elsewhere.example/mcp" });
		expect(elsewhere.status).toBe(400);
		expect(await elsewhere.json()).toMatchObject({ error: "invalid_target" });
		// The refused request spent nothing: the same token still rotates.
		const rotated = await readTokens(await refresh(platform.url, tokens.client, tokens.refreshToken, { resource }));
		expect(rotated.refreshToken).toEqual(expect.any(String));
		expect(jwtClaims(rotated.accessToken).aud).toBe(resource);
		const again = await readTokens(await refresh(platform.url, tokens.client, rotated.refreshToken, { resource }));
		expect(await whoamiStatus(platform, again.accessToken)).toBe(200);
	});

	it("keeps a connection in use alive past the refresh-token lifetime: each refresh extends it", { timeout: 120_000 }, async () => {
		const shortLived = await startTestPlatform({ oauth: { refreshTokenTtlSeconds: 8 } });
		try {
			const shortWorkspace = await shortLived.createWorkspace();
			const shortEmail = `sliding-${Date.now()}@example.com`;
			await createUser(shortLived.operator(), { email: shortEmail, password: PASSWORD, organizationId: shortWorkspace.organizationId, role: "member" });
			const connected = await connectMcpClient(shortLived.url, { email: shortEmail, password: PASSWORD });
			let tokens: { accessToken: string; refreshToken: string } = connected;
			const approvedUntil = Math.floor(Date.now() / 1000) + 8;
			// Refresh whenever about half of the refresh token's life has gone, until well past the first expiry.
			while (Date.now() < (approvedUntil + 4) * 1000) {
				await untilPast(Math.floor(Date.now() / 1000) + 3);
				tokens = await readTokens(await refresh(shortLived.url, connected.client, tokens.refreshToken));
			}
			expect(await whoamiStatus(shortLived, tokens.accessToken)).toBe(200);
			const userId = jwtClaims(tokens.accessToken).sub as string;
			const [listed] = (await listConnections(shortLived.operator(), { userId })).data;
			expect(Date.parse(listed.expiresAt as string)).toBeGreaterThan(Date.now());

			// Unused for the refresh-token lifetime, it ends, and is listed as ended rather than active.
			await untilPast(Math.floor(Date.parse(listed.expiresAt as string) / 1000) + 1);
			expect((await refresh(shortLived.url, connected.client, tokens.refreshToken)).status).toBe(400);
			expect((await listConnections(shortLived.operator(), { userId })).data[0]).toMatchObject({ revokedAt: null, expiresAt: null });
		} finally {
			await shortLived.stop();
		}
	});

	it("issues bearer tokens only: DPoP is neither advertised nor bound, and a key-bound token is no bearer token at /mcp", async () => {
		const metadata = (await (await fetch(`${platform.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
		expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();

		const { privateKey, publicKey } = await generateKeyPair("ES256");
		const proof = await new SignJWT({ htm: "POST", htu: `${platform.services.settings.publicBaseUrl}/oauth/token`, jti: randomUUID() })
			.setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(publicKey) })
			.setIssuedAt()
			.sign(privateKey);
		const { redirect, verifier, client } = await authorize(platform.url, { email, password: PASSWORD });
		const form = new URLSearchParams({ grant_type: "authorization_code", code: redirect.searchParams.get("code") as string, redirect_uri: client.redirectUri, code_verifier: verifier, client_id: client.clientId });
		const response = await fetch(`${platform.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", dpop: proof }, body: form });
		const body = (await response.json()) as Record<string, string>;
		expect(response.status).toBe(200);
		expect(body.token_type).toBe("Bearer");
		expect(jwtClaims(body.access_token).cnf).toBeUndefined();
		expect(await whoamiStatus(platform, body.access_token)).toBe(200);

		const [signingKey] = await loadSigningKeys(platform.orm, platform.services.secrets);
		const bound = await new SignJWT({ ...jwtClaims(body.access_token), cnf: { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" } })
			.setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: signingKey.kid })
			.sign(await importJWK(signingKey, "ES256"));
		const refused = await callMcp(platform.url, bound, "tools/list");
		expect(refused.status).toBe(401);
		expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
	});

	it("routes every endpoint discovery advertises (no pushed authorization requests: nothing uses them)", async () => {
		const metadata = (await (await fetch(`${platform.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
		expect(metadata.pushed_authorization_request_endpoint).toBeUndefined();
		const advertised = Object.entries(metadata).filter(([name, value]) => (name.endsWith("_endpoint") || name === "jwks_uri") && typeof value === "string");
		expect(advertised.map(([name]) => name).sort()).toEqual(["authorization_endpoint", "jwks_uri", "registration_endpoint", "revocation_endpoint", "token_endpoint"]);
		const methods: Record<string, string> = { authorization_endpoint: "GET", jwks_uri: "GET", registration_endpoint: "POST", revocation_endpoint: "POST", token_endpoint: "POST" };
		for (const [name, value] of advertised) {
			const url = new URL(value as string);
			expect(url.origin).toBe(platform.services.settings.publicBaseUrl);
			const response = await fetch(new URL(url.pathname, platform.url), { method: methods[name], redirect: "manual" });
			await response.body?.cancel();
			expect({ name, status: response.status }).not.toEqual({ name, status: 404 });
		}
		const request = await fetch(`${platform.url}/request`, { method: "POST" });
		expect(request.status).toBe(404);
	});

	it("sends every provider response with a content security policy, no framing and no sniffing", async () => {
		const checks: [string, Response][] = [
			["error page", await fetch(`${platform.url}/oauth/authorize?client_id=unknown&response_type=code`, { redirect: "manual" })],
			["token error", await fetch(`${platform.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token" })],
			["discovery", await fetch(`${platform.url}/.well-known/openid-configuration`)],
			["keys", await fetch(`${platform.url}/.well-known/jwks.json`)],
		];
		for (const [what, response] of checks) {
			await response.body?.cancel();
			const policy = response.headers.get("content-security-policy") ?? "";
			expect({ what, policy }).toEqual({ what, policy: expect.stringContaining("frame-ancestors 'none'") });
			expect(policy).toContain("default-src 'none'");
			expect(policy).toMatch(/script-src 'none'/);
			expect(policy).not.toContain("unsafe-inline' 'unsafe-eval");
			expect(/script-src[^;]*unsafe-inline/.test(policy)).toBe(false);
			expect(response.headers.get("x-content-type-options")).toBe("nosniff");
		}
		expect(checks[0][1].headers.get("content-type")).toMatch(/^text\/html/);
		expect(checks[0][1].headers.get("x-frame-options")).toBe("DENY");
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
