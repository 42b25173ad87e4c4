import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newPersonContext, screenshotForDocs, seriousAccessibilityViolations } from "../helpers/browser";
import { signInToDashboard } from "../helpers/dashboard-session";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, type RecordedRequest, type ScriptedAnswer, startProviderStandIn } from "../helpers/provider-stand-in";

/**
 * The administration pages in a real browser (Debian's chromium) against a real server: found by
 * role and accessible name, checked with axe-core under the page's own CSP, photographed for the
 * docs. The model provider is the stand-in, answering its models list as OpenAI does.
 */
const GOOD_KEY = "sk-browser-good-key-0123456789";
const WRONG_KEY = "sk-browser-wrong-key-9876543210";

function modelsEndpoint(request: RecordedRequest): ScriptedAnswer | undefined {
	if (!request.path.endsWith("/models")) return undefined;
	if (request.headers.authorization !== `Bearer ${GOOD_KEY}`) return { kind: "error", status: 401, message: "Incorrect API key provided: sk-br***3210.", code: "invalid_api_key" };
	return { kind: "raw", status: 200, body: JSON.stringify({ object: "list", data: [{ id: "gpt-4o-mini", object: "model" }, { id: "gpt-4o", object: "model" }] }) };
}

describe("the administration pages in a real browser", { timeout: 180_000 }, () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;
	let browser: Browser;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		[platform, standIn, browser] = await Promise.all([startTestPlatform(), startProviderStandIn(), launchBrowser()]);
		standIn.responder = modelsEndpoint;
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await browser?.close();
		await Promise.all([platform?.stop(), standIn?.close()]);
	});

	/** A browser context already signed in as `email` (its session cookie), as after the sign-in page. */
	async function signedInContext(email: string, options: { width?: number; height?: number } = {}): Promise<BrowserContext> {
		const { cookie } = await signInToDashboard(platform.url, email, TEST_PASSWORD);
		const context = await newPersonContext(browser, options);
		const [name, value] = cookie.split("=");
		await context.addCookies([{ name, value, url: platform.url }]);
		return context;
	}

	async function expectAccessible(page: Page): Promise<void> {
		expect(await seriousAccessibilityViolations(page)).toEqual([]);
	}

	it("creates an API key that works from a program, shows it once, and revokes it: its next request is 401 INVALID_CREDENTIALS", async () => {
		const context = await signedInContext(workspace.ownerEmail);
		const page = await context.newPage();
		await page.goto(`${platform.url}/workspaces/${workspace.workspaceId}/api-keys`);
		await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
		await page.getByRole("table", { name: "API keys" }).waitFor();
		await expectAccessible(page);
		await screenshotForDocs(page, "api-keys");

		await page.getByRole("button", { name: "Create API key" }).click();
		const dialog = page.getByRole("dialog", { name: "Create an API key" });
		// Nothing chosen: the server's words next to the fields they name.
		await dialog.getByLabel("runtime:execute").uncheck();
		await dialog.getByRole("button", { name: "Create key" }).click();
		await dialog.getByText("Choose at least one scope").waitFor();
		await expect(dialog.getByLabel("Name").getAttribute("aria-invalid")).resolves.toBe("true");
		await expect(dialog.getByText("Required", { exact: true }).getAttribute("id")).resolves.toBe(
			(await dialog.getByLabel("Name").getAttribute("aria-describedby"))?.split(" ").find((id) => id.endsWith("-error")),
		);

		await dialog.getByLabel("Name").fill("Nightly export");
		await dialog.getByLabel("knowledge:read").check();
		await dialog.getByRole("button", { name: "Create key" }).click();
		const shown = page.getByRole("dialog", { name: "Your new API key" });
		await shown.getByText("Copy the key now: it is shown only this once.").waitFor();
		await shown.getByRole("button", { name: "Copy key" }).waitFor();
		const key = await shown.getByLabel("API key").inputValue();
		expect(key).toMatch(/^csk_live_[\w-]{43}$/);
		await expectAccessible(page);
		await screenshotForDocs(page, "api-key-created");

		const used = await fetch(`${platform.url}/knowledge/sources`, { headers: { authorization: `Bearer ${key}` } });
		expect(used.status).toBe(200);

		await shown.getByRole("button", { name: "Done" }).click();
		const row = page.getByRole("row", { name: /Nightly export/ });
		await row.getByText("knowledge:read").waitFor();
		// The list shows the beginning of the key, never the key.
		expect(await page.content()).not.toContain(key);
		await row.getByRole("button", { name: "Revoke Nightly export" }).click();
		const confirm = page.getByRole("alertdialog", { name: "Revoke “Nightly export”?" });
		await confirm.getByRole("button", { name: "Revoke key" }).click();
		await page.getByText("The key “Nightly export” was revoked").waitFor();

		const refused = await fetch(`${platform.url}/knowledge/sources`, { headers: { authorization: `Bearer ${key}` } });
		expect(refused.status).toBe(401);
		expect(await refused.json()).toMatchObject({ code: "INVALID_CREDENTIALS" });
		await context.close();
	});

	it("sets a provider credential and tests it: the right key works; a wrong one does not, and neither is shown", async () => {
		const context = await signedInContext(workspace.ownerEmail);
		const page = await context.newPage();
		await page.goto(`${platform.url}/workspaces/${workspace.workspaceId}/provider-credentials`);
		await page.getByRole("heading", { name: "Provider credentials", level: 1 }).waitFor();

		// openai-compatible needs a base URL: the server says so next to that field.
		await page.getByRole("button", { name: "Set key for OpenAI-compatible" }).click();
		let dialog = page.getByRole("dialog", { name: "OpenAI-compatible credential" });
		await dialog.getByLabel("API key").fill(GOOD_KEY);
		await dialog.getByRole("button", { name: "Save key" }).click();
		await dialog.getByText("Required for openai-compatible").waitFor();
		await expect(dialog.getByLabel("Base URL").getAttribute("aria-invalid")).resolves.toBe("true");
		await dialog.getByRole("button", { name: "Cancel" }).click();

		await page.getByRole("button", { name: "Set key for OpenAI", exact: true }).click();
		dialog = page.getByRole("dialog", { name: "OpenAI credential", exact: true });
		await dialog.getByLabel("API key").fill(GOOD_KEY);
		await dialog.getByLabel("Base URL").fill(standIn.baseUrl);
		await dialog.getByRole("button", { name: "Save key" }).click();
		await page.getByText(`OpenAI: the key ending in ${GOOD_KEY.slice(-4)} was saved`).waitFor();
		await page.getByRole("button", { name: "Test the OpenAI key" }).click();
		await page.getByText("OpenAI: the key works").waitFor();
		await page.getByText("openai accepted the key and lists 2 models. For example: gpt-4o-mini, gpt-4o.").waitFor();
		await expectAccessible(page);
		await screenshotForDocs(page, "provider-credentials");

		await page.getByRole("button", { name: "Replace key for OpenAI", exact: true }).click();
		dialog = page.getByRole("dialog", { name: "OpenAI credential", exact: true });
		// Replacing the key keeps the base URL it was stored with.
		await expect(dialog.getByLabel("Base URL").inputValue()).resolves.toBe(standIn.baseUrl);
		await dialog.getByLabel("API key").fill(WRONG_KEY);
		await dialog.getByRole("button", { name: "Save key" }).click();
		await page.getByText(`the key ending in ${WRONG_KEY.slice(-4)} was saved`).waitFor();
		await page.getByRole("button", { name: "Test the OpenAI key" }).click();
		await page.getByRole("alert").getByText("OpenAI: the key does not work").waitFor();
		await page.getByText("openai rejected the workspace's stored credential (HTTP 401); update it in the provider settings").waitFor();
		const html = await page.content();
		for (const secret of [GOOD_KEY, WRONG_KEY, "sk-br***"]) expect(html).not.toContain(secret);
		await page.getByRole("row", { name: /OpenAI/ }).first().getByText(WRONG_KEY.slice(-4)).waitFor();
		await context.close();
	});

	it("invites a viewer, who opens the link in a fresh browser, sets a password and signs in: nothing they cannot do is offered, and the API refuses a write", async () => {
		const owner = await signedInContext(workspace.ownerEmail);
		const page = await owner.newPage();
		await page.goto(`${platform.url}/organizations/${workspace.organizationId}/members`);
		await page.getByRole("heading", { name: "Members", level: 1 }).waitFor();
		await page.getByRole("table", { name: "Members" }).waitFor();
		// The last owner: no control offers what the server would refuse.
		await page.getByText("The last owner: make someone else owner first.").waitFor();
		await expectAccessible(page);
		await screenshotForDocs(page, "members");

		const email = `viewer-${Date.now()}@example.com`;
		await page.getByRole("button", { name: "Invite someone" }).click();
		const dialog = page.getByRole("dialog", { name: /^Invite someone to / });
		await dialog.getByLabel("Email").fill(email);
		await dialog.getByLabel("Role").selectOption("viewer");
		await dialog.getByRole("button", { name: "Create invitation link" }).click();
		const shown = page.getByRole("dialog", { name: "Invitation link" });
		const link = await shown.getByLabel("Invitation link").inputValue();
		expect(link).toMatch(new RegExp(`^${platform.url}/invitations/[\\w-]{43}$`));
		await expectAccessible(page);
		await screenshotForDocs(page, "invitation-created");
		await shown.getByRole("button", { name: "Done" }).click();
		await page.getByRole("row", { name: new RegExp(email) }).getByRole("button", { name: `Revoke the invitation of ${email}` }).waitFor();

		// The invited person, in a browser of their own.
		const invited = await newPersonContext(browser);
		const invitedPage = await invited.newPage();
		await invitedPage.goto(link);
		await invitedPage.getByRole("heading", { name: /^Join / }).waitFor();
		await expect(invitedPage.getByLabel("Email").inputValue()).resolves.toBe(email);
		await expectAccessible(invitedPage);
		await screenshotForDocs(invitedPage, "invitation");
		await invitedPage.getByLabel("Your name").fill("Vera Viewer");
		await invitedPage.getByLabel("Choose a password").fill("short");
		await invitedPage.getByRole("button", { name: "Create account and join" }).click();
		await invitedPage.getByText("At least 10 characters", { exact: true }).waitFor();
		await invitedPage.getByLabel("Choose a password").fill("a viewer's own password");
		await invitedPage.getByRole("button", { name: "Create account and join" }).click();
		await invitedPage.getByRole("heading", { name: "Getting started" }).waitFor();
		expect(new URL(invitedPage.url()).pathname).toBe(`/workspaces/${workspace.workspaceId}`);
		await invitedPage.getByRole("button", { name: `Account: ${email}` }).waitFor();

		// Nothing administrative is offered to a viewer…
		const navigation = invitedPage.getByRole("navigation", { name: "Main" });
		for (const label of ["API keys", "Provider credentials", "Members", "Organization settings"]) expect(await navigation.getByRole("link", { name: label }).count(), label).toBe(0);
		// …and opening the pages by address shows why, with no control that would fail.
		await invitedPage.goto(`${platform.url}/workspaces/${workspace.workspaceId}/api-keys`);
		await invitedPage.getByText("Only admins and owners manage API keys.").waitFor();
		await invitedPage.goto(`${platform.url}/workspaces/${workspace.workspaceId}/provider-credentials`);
		await invitedPage.getByText("Only admins and owners manage provider credentials.").waitFor();
		await invitedPage.goto(`${platform.url}/organizations/${workspace.organizationId}/members`);
		await invitedPage.getByText("Only admins and owners manage members.").waitFor();
		await invitedPage.goto(`${platform.url}/organizations/${workspace.organizationId}/settings`);
		await invitedPage.getByRole("heading", { name: "Administration over MCP" }).waitFor();
		await expect(invitedPage.getByLabel("Allow administration over MCP").isDisabled()).resolves.toBe(true);
		for (const name of ["Create API key", "Invite someone", "Set key for OpenAI", "Save", "Revoke", "Change role", "Remove"]) {
			expect(await invitedPage.getByRole("button", { name, exact: true }).count(), name).toBe(0);
		}

		// A write sent straight to the management API, with the viewer's own session and CSRF token, is refused.
		const attempt = await invitedPage.evaluate(async (workspaceId) => {
			const session = (await (await fetch("/management/session")).json()) as { csrfToken: string };
			const response = await fetch(`/management/workspaces/${workspaceId}/api-keys`, {
				method: "POST",
				headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
				body: JSON.stringify({ name: "Sneaky" }),
			});
			return { status: response.status, body: (await response.json()) as { code: string; message: string } };
		}, workspace.workspaceId);
		expect(attempt).toEqual({ status: 403, body: expect.objectContaining({ code: "FORBIDDEN", message: "Your role in this organization (viewer) cannot do this; it needs admin or above" }) });

		// Signed out, the password they chose signs them in.
		await invitedPage.getByRole("button", { name: `Account: ${email}` }).click();
		await invitedPage.getByRole("menuitem", { name: "Sign out", exact: true }).click();
		await invitedPage.getByRole("heading", { name: "Sign in" }).waitFor();
		await invitedPage.getByLabel("Email").fill(email);
		await invitedPage.getByLabel("Password").fill("a viewer's own password");
		await invitedPage.getByRole("button", { name: "Sign in" }).click();
		await invitedPage.getByRole("heading", { name: "Getting started" }).waitFor();

		// The link worked once: opened again, it says so.
		const again = await newPersonContext(browser);
		const againPage = await again.newPage();
		await againPage.goto(link);
		await againPage.getByRole("heading", { name: "This invitation has already been used" }).waitFor();
		await expectAccessible(againPage);
		await screenshotForDocs(againPage, "invitation-used");
		await againPage.goto(`${platform.url}/invitations/${"x".repeat(43)}`);
		await againPage.getByRole("heading", { name: "Invitation link not valid" }).waitFor();
		await againPage.getByText("This invitation link is not valid.").waitFor();
		await Promise.all([owner.close(), invited.close(), again.close()]);
	});

	it("lets the owner switch administration over MCP off and on", async () => {
		const context = await signedInContext(workspace.ownerEmail);
		const page = await context.newPage();
		await page.goto(`${platform.url}/organizations/${workspace.organizationId}/settings`);
		await page.getByRole("heading", { name: "Organization settings", level: 1 }).waitFor();
		const allow = page.getByLabel("Allow administration over MCP");
		await expect(allow.isChecked()).resolves.toBe(true);
		await allow.uncheck();
		await page.getByRole("button", { name: "Save" }).click();
		await page.getByText("Saved: administration over MCP is disabled").waitFor();
		const [row] = await platform.orm.em.fork().getConnection().execute<{ mcp_admin_disabled: boolean }[]>("select mcp_admin_disabled from organizations where id = ?", [workspace.organizationId]);
		expect(row.mcp_admin_disabled).toBe(true);
		await expectAccessible(page);
		await screenshotForDocs(page, "organization-settings");
		await allow.check();
		await page.getByRole("button", { name: "Save" }).click();
		await page.getByText("Saved: administration over MCP is allowed").waitFor();
		await context.close();
	});

	it("works from the keyboard alone, with a visible focus", async () => {
		const context = await signedInContext(workspace.ownerEmail);
		const page = await context.newPage();
		await page.goto(`${platform.url}/workspaces/${workspace.workspaceId}/api-keys`);
		await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
		const create = page.getByRole("button", { name: "Create API key" });
		const focused = () => create.evaluate((element) => (element as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === element);
		for (let presses = 0; presses < 40 && !(await focused()); presses++) await page.keyboard.press("Tab");
		await expect(focused()).resolves.toBe(true);
		// The focus ring (app.css :focus-visible) is drawn.
		await expect(create.evaluate((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { outlineStyle: string } }).getComputedStyle(element).outlineStyle)).resolves.toBe("solid");
		await page.keyboard.press("Enter");
		const dialog = page.getByRole("dialog", { name: "Create an API key" });
		await dialog.waitFor();
		// Focus moved into the dialog: type the name, submit with Enter.
		await page.keyboard.type("Typed with the keyboard");
		await expect(dialog.getByLabel("Name").inputValue()).resolves.toBe("Typed with the keyboard");
		await page.keyboard.press("Enter");
		await page.getByRole("dialog", { name: "Your new API key" }).waitFor();
		await page.keyboard.press("Escape");
		await page.getByRole("row", { name: /Typed with the keyboard/ }).waitFor();
		await context.close();
	});

	it("reads at 768 px wide and at 200% zoom (640 CSS pixels) without the page scrolling sideways", async () => {
		for (const width of [768, 640]) {
			const context = await signedInContext(workspace.ownerEmail, { width, height: 900 });
			const page = await context.newPage();
			for (const [path, heading] of [
				[`/workspaces/${workspace.workspaceId}/api-keys`, "API keys"],
				[`/workspaces/${workspace.workspaceId}/provider-credentials`, "Provider credentials"],
				[`/organizations/${workspace.organizationId}/members`, "Members"],
				[`/organizations/${workspace.organizationId}/settings`, "Organization settings"],
			]) {
				await page.goto(`${platform.url}${path}`);
				await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
				await page.getByRole("table").or(page.getByRole("checkbox")).first().waitFor();
				const overflow = await page.evaluate(() => {
					const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
					return root.scrollWidth - root.clientWidth;
				});
				expect(overflow, `${path} at ${width} px`).toBeLessThanOrEqual(0);
			}
			await context.close();
		}
	});
});
