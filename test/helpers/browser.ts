import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

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
