import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { DOCS_DIRECTORY, launchBrowser, newPersonContext, seriousAccessibilityViolations } from "../helpers/browser";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";

const COMMITTED = join(import.meta.dirname, "..", "..", "openapi.yaml");

describe("the API reference, served", { timeout: 120_000 }, () => {
	let platform: TestPlatform;
	let browser: Browser;

	beforeAll(async () => {
		platform = await startTestPlatform();
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await platform?.stop();
	});

	it("GET /openapi.yaml is the committed document, /openapi.json the same as JSON; no key needed", async () => {
		const committed = await readFile(COMMITTED, "utf8");
		const yaml = await fetch(`${platform.url}/openapi.yaml`);
		expect(yaml.status).toBe(200);
		expect(yaml.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
		expect(await yaml.text()).toBe(committed);
		const json = await fetch(`${platform.url}/openapi.json`);
		expect(json.status).toBe(200);
		expect(await json.json()).toEqual(parseYaml(committed));
		const etag = json.headers.get("etag") as string;
		expect((await fetch(`${platform.url}/openapi.json`, { headers: { "if-none-match": etag } })).status).toBe(304);
		expect((await fetch(`${platform.url}/openapi.json`, { method: "POST" })).status).toBe(404);
	});

	it("/docs renders every operation from the document in a real browser, under a CSP that allows nothing from elsewhere", async () => {
		const response = await fetch(`${platform.url}/docs`);
		const csp = response.headers.get("content-security-policy") as string;
		expect(csp).toContain("script-src 'self'");
		expect(csp).toContain("default-src 'none'");
		expect(await response.text()).not.toMatch(/https?:\/\//);

		const context = await newPersonContext(browser);
		const page = await context.newPage();
		const problems: string[] = [];
		page.on("console", (message) => {
			if (message.type() === "error") problems.push(message.text());
		});
		const offOrigin: string[] = [];
		page.on("request", (request) => {
			if (!request.url().startsWith(platform.url)) offOrigin.push(request.url());
		});
		await page.goto(`${platform.url}/docs`);
		await page.getByRole("heading", { name: /AI Application Platform API/ }).waitFor();
		// Each operation of the document is listed by its path.
		const document = parseYaml(await readFile(COMMITTED, "utf8")) as { paths: Record<string, object> };
		for (const path of ["/runtime/execute", "/runtime/stream", "/knowledge/sources/{sourceId}/search", "/readyz"]) {
			expect(Object.keys(document.paths)).toContain(path);
			await expect(page.getByText(path, { exact: true }).first().isVisible()).resolves.toBe(true);
		}
		expect(offOrigin).toEqual([]);
		expect(problems).toEqual([]);
		// One known exception, Swagger UI's own structure: each operation's summary row is a button that
		// holds further controls. Everything else axe-core checks holds (contrast fixed by reference.css,
		// the server picker named by the page's script).
		const violations = (await seriousAccessibilityViolations(page)).filter(
			(violation) => !(violation.id === "nested-interactive" && violation.targets.every((target) => target.endsWith(".opblock-summary-control"))),
		);
		expect(violations).toEqual([]);
		await page.screenshot({ path: join(DOCS_DIRECTORY, "api-reference.png") });
		await context.close();
	});
});
