import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
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
	redirectToAuthorization(url: URL) {
		this.authorizationUrl = url;
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

		// 4. The person sees the connection on Connected applications, and revoking it stops the client.
		await page.goto(`${platform.services.settings.publicBaseUrl}/oauth/connections`);
		await page.getByLabel("Email").fill(email);
		await page.getByLabel("Password").fill(PASSWORD);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.getByRole("heading", { name: "Connected applications" }).waitFor();
		await expect(page.getByRole("row", { name: /Inspector-like MCP client/ }).count()).resolves.toBe(1);
		await page.screenshot({ path: join(DOCS, "oauth-connections.png"), fullPage: true });
		await page.getByRole("button", { name: "Revoke Inspector-like MCP client" }).click();
		await page.getByText("The application was disconnected.").waitFor();
		await expect(page.getByText("No application is connected to your account.").count()).resolves.toBe(1);

		const refused = new Client({ name: "test-client", version: "1.0.0" });
		const noRefresh = { ...provider, tokens: () => ({ access_token: provider.saved?.access_token as string, token_type: "Bearer" }), redirectUrl: REDIRECT_URL, clientMetadata: provider.clientMetadata } as OAuthClientProvider;
		await expect(refused.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: noRefresh }))).rejects.toThrow();
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
