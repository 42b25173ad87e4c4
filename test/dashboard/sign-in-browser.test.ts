import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newPersonContext, screenshotForDocs, seriousAccessibilityViolations } from "../helpers/browser";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";

describe("the dashboard in a real browser: signing in and out", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let browser: Browser;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await platform?.stop();
	});

	it("sends a signed-out person to sign in and back to the page they asked for; signs out", async () => {
		const context = await newPersonContext(browser);
		const page = await context.newPage();
		const consoleErrors: string[] = [];
		page.on("console", (message) => {
			if (message.type() === "error") consoleErrors.push(message.text());
		});
		await page.goto(`${platform.url}/workspaces/${workspace.workspaceId}`);
		await page.getByRole("heading", { name: "Sign in" }).waitFor();
		expect(new URL(page.url()).pathname).toBe("/login");
		expect(await seriousAccessibilityViolations(page)).toEqual([]);
		await screenshotForDocs(page, "sign-in");

		await page.getByLabel("Email").fill(workspace.ownerEmail);
		await page.getByLabel("Password").fill("wrong password");
		await page.getByRole("button", { name: "Sign in" }).click();
		await expect(page.getByRole("alert").textContent()).resolves.toContain("do not match");

		await page.getByLabel("Password").fill(TEST_PASSWORD);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.getByRole("heading", { name: "Getting started" }).waitFor();
		expect(new URL(page.url()).pathname).toBe(`/workspaces/${workspace.workspaceId}`);
		expect(await seriousAccessibilityViolations(page)).toEqual([]);

		await page.getByRole("button", { name: `Account: ${workspace.ownerEmail}` }).click();
		await page.getByRole("menuitem", { name: "Sign out", exact: true }).click();
		await page.getByRole("heading", { name: "Sign in" }).waitFor();
		await page.goto(`${platform.url}/workspaces/${workspace.workspaceId}`);
		await page.getByRole("heading", { name: "Sign in" }).waitFor();
		// The page runs under its CSP without a single violation.
		expect(consoleErrors.filter((text) => /Content Security Policy|Refused to/.test(text))).toEqual([]);
		await context.close();
	});

	it("cannot be framed, and loads nothing from anywhere else", async () => {
		const response = await fetch(`${platform.url}/login`);
		expect(response.headers.get("x-frame-options")).toBe("DENY");
		const csp = response.headers.get("content-security-policy") ?? "";
		expect(csp).toContain("frame-ancestors 'none'");
		expect(csp).toMatch(/script-src 'self';/);
		expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
	});
});
