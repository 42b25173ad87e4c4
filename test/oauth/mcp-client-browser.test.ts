import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { jwtClaims, pkcePair, registerClient, untilPast } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const DOCS = join(import.meta.dirname, "../../docs");
const PASSWORD = "correct horse battery";
const REDIRECT_URL = "http://127.0.0.1:43117/oauth/callback";

/** What an MCP client application keeps: its registration, tokens and the PKCE verifier; opening the browser is the test's job. */
class RecordingProvider implements OAuthClientProvider {
	information?: OAuthClientInformationMixed;
	saved?: OAuthTokens;
	verifier?: string;
	authorizationUrl?: URL;

	get redirectUrl() {
		return REDIRECT_URL;
	}
	get clientMetadata(): OAuthClientMetadata {
		return { client_name: "Inspector-like MCP client", redirect_uris: [REDIRECT_URL], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
	}
	clientInformation() {
		return this.information;
	}
	saveClientInformation(information: OAuthClientInformationMixed) {
		this.information = information;
	}
	tokens() {
		return this.saved;
	}
	saveTokens(tokens: OAuthTokens) {
		this.saved = tokens;
	}
	/** How many times the SDK needed a person in a browser. */
	authorizations = 0;
	redirectToAuthorization(url: URL) {
		this.authorizationUrl = url;
		this.authorizations += 1;
	}
	saveCodeVerifier(verifier: string) {
		this.verifier = verifier;
	}
	codeVerifier() {
		return this.verifier as string;
	}
}

describe("the official MCP SDK client, with a person in a real browser", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let browser: Browser;
	const email = `member-${Date.now()}@example.com`;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "admin", name: "Ada Member" });
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	});
	afterAll(async () => {
		await browser?.close();
		await platform?.stop();
	});

	it("discovers, registers, runs PKCE through sign-in and consent in chromium, then lists tools on /mcp", async () => {
		const mcpUrl = new URL(`${platform.services.settings.publicBaseUrl}/mcp`);
		const provider = new RecordingProvider();

		// 1. The client's first call is refused; the SDK discovers the servers, registers and builds the authorization URL.
		const firstTransport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
		await expect(new Client({ name: "test-client", version: "1.0.0" }).connect(firstTransport)).rejects.toBeInstanceOf(UnauthorizedError);
		const authorizationUrl = provider.authorizationUrl as URL;
		expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
		expect(authorizationUrl.searchParams.get("resource")).toBe(mcpUrl.href);
		expect(provider.information?.client_id).toEqual(expect.any(String));

		// 2. A person signs in and approves in the browser; the redirect to the client is caught.
		const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
		let callback: URL | undefined;
		await page.route(`${REDIRECT_URL}**`, async (route) => {
			callback = new URL(route.request().url());
			await route.fulfill({ status: 200, contentType: "text/html", body: "<p>You can close this window.</p>" });
		});
		await page.goto(authorizationUrl.href);
		await expect(page.title()).resolves.toContain("Sign in to connect");
		// Keyboard first: the email field has focus, then Tab to the password, Enter submits. Chromium
		// applies autofocus at a rendering update after load: keys typed before it were lost under load.
		await page.locator("#email:focus").waitFor();
		await page.keyboard.type(email);
		await page.keyboard.press("Tab");
		await page.keyboard.type(PASSWORD);
		await page.keyboard.press("Enter");
		// The consent page follows at once; a sign-in refused would show the form again, with its reason.
		await page.getByRole("heading", { name: /Allow Inspector-like MCP client/ }).or(page.getByRole("alert")).first().waitFor();
		expect(await page.getByRole("alert").count(), await page.getByRole("alert").allTextContents().then((texts) => texts.join(" "))).toBe(0);
		await page.getByRole("heading", { name: /Allow Inspector-like MCP client/ }).waitFor();
		expect(await page.getByLabel(/Read/).isChecked()).toBe(true);
		expect(await page.getByLabel(/Read/).isDisabled()).toBe(true);
		expect(await page.getByLabel(/Write/).isChecked()).toBe(false);
		await page.getByLabel(/Write/).check();
		await page.screenshot({ path: join(DOCS, "oauth-consent.png"), fullPage: true });
		await page.getByRole("button", { name: "Allow" }).click();
		await page.waitForURL(`${REDIRECT_URL}**`);
		expect(callback?.searchParams.get("iss")).toBe(platform.services.settings.publicBaseUrl);
		const code = callback?.searchParams.get("code") as string;

		// 3. The SDK exchanges the code (PKCE verifier, resource) and the next connection is authenticated.
		await firstTransport.finishAuth(code);
		expect(provider.saved?.scope?.split(" ").sort()).toEqual(["mcp:read", "mcp:write"]);
		const client = new Client({ name: "test-client", version: "1.0.0" });
		await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
		const { tools } = await client.listTools();
		expect(tools.map((tool) => tool.name)).toContain("whoami");
		const whoami = await client.callTool({ name: "whoami", arguments: {} });
		expect(whoami.structuredContent).toMatchObject({ user: { email }, organization: { id: workspace.organizationId }, scopes: ["mcp:read", "mcp:write"] });
		await client.close();

		// 4. Signed in at consent, the person is signed in to the dashboard too: Connected applications (its
		// old address redirects there) lists the connection without asking again, and revoking it stops the client.
		await page.goto(`${platform.services.settings.publicBaseUrl}/oauth/connections`);
		await page.getByRole("heading", { name: "Connected applications" }).waitFor();
		expect(new URL(page.url()).pathname).toBe("/account/connections");
		await expect.poll(() => page.getByRole("row", { name: /Inspector-like MCP client/ }).count()).toBe(1);
		// The dashboard's own width for its screenshot (the consent screen above is shown as a phone-sized window).
		await page.setViewportSize({ width: 1280, height: 900 });
		await page.screenshot({ path: join(DOCS, "oauth-connections.png"), fullPage: true });
		const connectionId = (await platform.orm.em.getConnection().execute("select id from oauth_connections where user_id = (select id from users where email = ?)", [email]))[0].id as string;
		await page.getByRole("button", { name: `Revoke Inspector-like MCP client (${connectionId})` }).click();
		await page.getByRole("alertdialog").getByRole("button", { name: "Revoke" }).click();
		await page.getByText("The application was disconnected.").waitFor();
		await expect.poll(() => page.getByText("No application is connected to your account.").count()).toBe(1);

		const refused = new Client({ name: "test-client", version: "1.0.0" });
		// The unexpired access token alone (no refresh token to fall back on): refused, so the SDK asks for a person again.
		const noRefresh: OAuthClientProvider = Object.assign(Object.create(provider) as RecordingProvider, {
			tokens: () => ({ access_token: provider.saved?.access_token as string, token_type: "Bearer" }),
		});
		await expect(refused.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: noRefresh }))).rejects.toBeInstanceOf(UnauthorizedError);
		await page.close();
	});

	it("shows a plain-words page, not a stack trace, for an expired or unknown sign-in link", async () => {
		const page = await browser.newPage();
		const response = await page.goto(`${platform.services.settings.publicBaseUrl}/oauth/interaction/unknown-interaction-id`);
		expect(response?.status()).toBe(400);
		await page.getByRole("heading", { name: "This sign-in link has expired" }).waitFor();
		expect(await page.content()).not.toMatch(/node_modules|Error:|at \w+ \(/);
		await page.close();
	});
});

/** A person approves in the browser (signing in first when the browser has no session yet); returns the code the client receives. */
async function approveInBrowser(page: Page, authorizationUrl: URL, person: { email: string; password: string } | undefined): Promise<string> {
	let callback: URL | undefined;
	await page.route(`${REDIRECT_URL}**`, async (route) => {
		callback = new URL(route.request().url());
		await route.fulfill({ status: 200, contentType: "text/html", body: "<p>You can close this window.</p>" });
	});
	await page.goto(authorizationUrl.href);
	if (person) {
		await page.locator("#email:focus").waitFor();
		await page.keyboard.type(person.email);
		await page.keyboard.press("Tab");
		await page.keyboard.type(person.password);
		await page.keyboard.press("Enter");
	}
	await page.getByRole("button", { name: "Allow" }).click();
	await page.waitForURL(`${REDIRECT_URL}**`);
	await page.unroute(`${REDIRECT_URL}**`);
	return callback?.searchParams.get("code") as string;
}

/** The SDK connects (discovery, registration unless known, authorization URL), a person approves, the SDK exchanges the code. */
async function connectWithSdk(mcpUrl: URL, provider: RecordingProvider, page: Page, person?: { email: string; password: string }): Promise<Client> {
	const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
	await expect(new Client({ name: "test-client", version: "1.0.0" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
	await transport.finishAuth(await approveInBrowser(page, provider.authorizationUrl as URL, person));
	const client = new Client({ name: "test-client", version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
	return client;
}

/**
 * Calls a tool once per access-token lifetime, each time after the token in hand has expired (read
 * from its exp, no fixed sleep): the SDK meets the 401, refreshes by itself and retries.
 */
async function callAcrossLifetimes(client: Client, provider: RecordingProvider, lifetimes: number): Promise<void> {
	const authorizations = provider.authorizations;
	for (let lifetime = 0; lifetime < lifetimes; lifetime++) {
		const expired = provider.saved?.access_token as string;
		await untilPast(jwtClaims(expired).exp as number);
		const whoami = await client.callTool({ name: "whoami", arguments: {} });
		expect(whoami.isError, JSON.stringify(whoami.content)).toBeFalsy();
		expect(provider.saved?.access_token).not.toBe(expired);
	}
	expect(provider.authorizations).toBe(authorizations);
}

describe("the official MCP SDK client keeps its connections by refreshing, with a person in a real browser", { timeout: 300_000 }, () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let browser: Browser;
	const email = `member-${Date.now()}@example.com`;
	const person = { email, password: PASSWORD };
	const ACCESS_TOKEN_SECONDS = 3;

	beforeAll(async () => {
		platform = await startTestPlatform({ oauth: { accessTokenTtlSeconds: ACCESS_TOKEN_SECONDS } });
		workspace = await platform.createWorkspace();
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
	});
	afterAll(async () => {
		await browser?.close();
		await platform?.stop();
	});

	it("refreshes across many token lifetimes without the browser, also after the same person connects the same client again from the same browser; revoking one leaves the other", async () => {
		const mcpUrl = new URL(`${platform.services.settings.publicBaseUrl}/mcp`);
		const context = await browser.newContext();
		const page = await context.newPage();

		const first = new RecordingProvider();
		const firstClient = await connectWithSdk(mcpUrl, first, page, person);
		expect(first.saved?.expires_in).toBe(ACCESS_TOKEN_SECONDS);
		await callAcrossLifetimes(firstClient, first, 3);

		// The same application connected again (a re-added connector, or a second installation
		// sharing the registration), approved in the same browser session: the consent page comes
		// at once, without signing in.
		const second = new RecordingProvider();
		second.information = first.information;
		const secondClient = await connectWithSdk(mcpUrl, second, page);
		const firstConnection = jwtClaims(first.saved?.access_token as string).connection_id as string;
		const secondConnection = jwtClaims(second.saved?.access_token as string).connection_id as string;
		expect(secondConnection).not.toBe(firstConnection);

		// Both keep working, each refreshing by itself, for several lifetimes.
		for (let round = 0; round < 3; round++) {
			await callAcrossLifetimes(firstClient, first, 1);
			await callAcrossLifetimes(secondClient, second, 1);
		}

		// The person revokes the first connection on Connected applications (signed in since consent): it stops, the second goes on.
		await page.goto(`${platform.services.settings.publicBaseUrl}/oauth/connections`);
		await page.getByRole("heading", { name: "Connected applications" }).waitFor();
		await expect.poll(() => page.getByRole("row", { name: /Inspector-like MCP client/ }).count()).toBe(2);
		await page.getByRole("button", { name: `Revoke Inspector-like MCP client (${firstConnection})` }).click();
		await page.getByRole("alertdialog").getByRole("button", { name: "Revoke" }).click();
		await page.getByText("The application was disconnected.").waitFor();

		// Its access token is refused at once, its refresh token too (the SDK reports the refusal).
		await expect(firstClient.callTool({ name: "whoami", arguments: {} })).rejects.toThrow(/grant request is invalid/);
		await callAcrossLifetimes(secondClient, second, 2);
		expect(second.authorizations).toBe(1);
		await secondClient.close();
		await firstClient.close();
		await context.close();
	});

	it("answers with response_mode=form_post on a page whose script runs under its content security policy", async () => {
		const client = await registerClient(platform.url, { redirectUri: REDIRECT_URL, name: "Form post client" });
		const { challenge } = pkcePair();
		const authorizationUrl = new URL("/oauth/authorize", platform.services.settings.publicBaseUrl);
		for (const [name, value] of Object.entries({
			response_type: "code",
			response_mode: "form_post",
			client_id: client.clientId,
			redirect_uri: REDIRECT_URL,
			code_challenge: challenge,
			code_challenge_method: "S256",
			scope: "mcp:read",
			state: "form-post-state",
		})) authorizationUrl.searchParams.set(name, value);

		const page = await browser.newPage();
		const policies: string[] = [];
		page.on("response", (response) => {
			// The resumed authorization that answers with the page (the earlier resume, after sign-in, is a redirect).
			if (response.status() === 200 && /\/oauth\/authorize\/[^/?]+$/.test(new URL(response.url()).pathname)) policies.push(response.headers()["content-security-policy"] ?? "");
		});
		let posted: URLSearchParams | undefined;
		await page.route(`${REDIRECT_URL}**`, async (route) => {
			posted = new URLSearchParams(route.request().postData() ?? "");
			await route.fulfill({ status: 200, contentType: "text/html", body: "<p>You can close this window.</p>" });
		});
		await page.goto(authorizationUrl.href);
		await page.locator("#email:focus").waitFor();
		await page.keyboard.type(email);
		await page.keyboard.press("Tab");
		await page.keyboard.type(PASSWORD);
		await page.keyboard.press("Enter");
		await page.getByRole("button", { name: "Allow" }).click();
		// The auto-submit script ran (a script the policy did not allow would leave the page standing).
		await page.waitForURL(`${REDIRECT_URL}**`);
		expect(posted?.get("code")).toEqual(expect.any(String));
		expect(posted?.get("state")).toBe("form-post-state");
		expect(policies.length).toBe(1);
		expect(policies[0]).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
		expect(policies[0]).not.toContain("unsafe-inline' 'unsafe");
		expect(/script-src[^;]*unsafe-inline/.test(policies[0])).toBe(false);
		expect(policies[0]).toContain("frame-ancestors 'none'");
		expect(policies[0]).toContain("form-action http://127.0.0.1:43117");
		await page.close();
	});
});
