import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** Debian's chromium (`.ci/run` installs it); playwright-core downloads no browser. */
export const CHROMIUM = "/usr/bin/chromium";
/** Headless, and nothing that reaches off this machine (background networking, updates, sync). */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export const DOCS_DIRECTORY = join(import.meta.dirname, "..", "..", "docs");

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A fresh context (its own cookies: a second person, or the same one signed out). */
export function newPersonContext(browser: Browser, options: { width?: number; height?: number } = {}): Promise<BrowserContext> {
	return browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 900 } });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AccessibilityViolation {
	id: string;
	impact: string | null;
	help: string;
	targets: string[];
}

/**
 * axe-core's WCAG 2.1 A/AA rules on the page as it is now. Injected through the DevTools
 * protocol (page.evaluate), which the page's Content-Security-Policy does not apply to, so the
 * page is checked with its real CSP in force. Returns the serious and critical violations.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
	await page.evaluate(axeSource);
	const violations = await page.evaluate(async () => {
		const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
		const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
		return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.map((node) => String(node.target[0])) }));
	});
	return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}

/** A screenshot of the whole page into docs/dashboard/<name>.png, for the README. */
export async function screenshotForDocs(page: Page, name: string): Promise<void> {
	await mkdir(join(DOCS_DIRECTORY, "dashboard"), { recursive: true });
	await page.screenshot({ path: join(DOCS_DIRECTORY, "dashboard", `${name}.png`), fullPage: true });
}

/**
 * A new page in `context`, signed in through the dashboard's own sign-in form as `email` (the
 * test password), arriving at `path` as the sign-in sends a person back to where they were going.
 */
export async function signInThroughPage(context: BrowserContext, baseUrl: string, email: string, path: string, password: string): Promise<Page> {
	const page = await context.newPage();
	await page.goto(`${baseUrl}${path}`);
	await page.getByLabel("Email").fill(email);
	await page.getByLabel("Password").fill(password);
	await page.getByRole("button", { name: "Sign in" }).click();
	await page.waitForURL((url) => url.pathname === path);
	return page;
}

/**
 * What every dashboard page owes a person: no serious or critical axe finding, and nothing wider
 * than the window at 768 and 640 CSS px (200% zoom of a 1280 px window). With `screenshot`, the
 * page as it is now goes to docs/dashboard/<screenshot>.png first.
 */
export async function checkDashboardPage(page: Page, screenshot?: string): Promise<void> {
	expect(await seriousAccessibilityViolations(page)).toEqual([]);
	if (screenshot) {
		await page.evaluate("window.scrollTo(0, 0)");
		await screenshotForDocs(page, screenshot);
	}
	const size = page.viewportSize();
	for (const width of [768, 640]) {
		await page.setViewportSize({ width, height: 900 });
		expect(await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"), `page wider than ${width} px`).toBeLessThanOrEqual(0);
	}
	if (size) await page.setViewportSize(size);
}
