import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../server/modules/tenancy/create-user";
import { answerByRequest, useEvaluationTestbed } from "../evaluations/evaluation-fixtures";
import { launchBrowser, newPersonContext, checkDashboardPage, signInThroughPage } from "../helpers/browser";
import { TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;
// The `orbit` assistant: version 1 answers "The capital is Paris.", version 2 "I am not sure." (it regresses on that case).
useEvaluationTestbed((started) => ({ platform, standIn, workspace } = started));

/**
 * Journey 3 in a real browser against a real server and worker: a dataset with two cases made
 * through the pages, run against version 1 and version 2, the runs compared with the regressed
 * case marked; then a viewer, who sees it all and can change none of it.
 */
describe("evaluations in the dashboard, in a real browser", { timeout: 300_000 }, () => {
	let browser: Browser;
	let viewerEmail: string;
	const workspacePath = () => `/workspaces/${workspace.workspaceId}`;

	beforeAll(async () => {
		viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: workspace.organizationId, role: "viewer" });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
	});

	const signIn = (context: BrowserContext, email: string, path: string) => signInThroughPage(context, platform.url, email, path, TEST_PASSWORD);


	/** Starts a run from the dataset's page; with `whileRunning`, the provider holds every answer until it has run. */
	async function startRun(page: Page, target: string, whileRunning?: () => Promise<void>): Promise<void> {
		let release = () => {};
		if (whileRunning) {
			const held = new Promise<void>((resolve) => (release = resolve));
			standIn.responder = (request) => {
				const answer = answerByRequest(request);
				return answer?.kind === "completion" ? { ...answer, holdUntil: held } : answer;
			};
		}
		await page.getByRole("form", { name: "Start a run" }).getByLabel("Run against").selectOption({ label: target });
		await page.getByRole("button", { name: "Start run" }).click();
		await page.getByRole("heading", { level: 1, name: /^Run of orbit version/ }).waitFor();
		if (whileRunning) {
			await whileRunning();
			release();
			standIn.responder = answerByRequest;
		}
		await page.getByRole("status").getByText("Completed").waitFor({ timeout: 30_000 });
	}

	let datasetPath = "";

	it("journey 3: a dataset with two cases, run against version 1 and version 2, compared: the regressed case is marked", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, workspacePath());
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Evaluations" }).click();
		await page.getByRole("heading", { name: "Evaluations", level: 1 }).waitFor();
		await page.getByText("No datasets yet.").waitFor();
		await checkDashboardPage(page);

		await page.getByRole("button", { name: "New dataset" }).click();
		const create = page.getByRole("dialog", { name: "New dataset" });
		await create.getByLabel("Name").fill("Support smoke test");
		await create.getByLabel("Description").fill("Arithmetic and geography");
		await create.getByRole("button", { name: "Create dataset" }).click();
		await page.getByRole("heading", { name: "Support smoke test", level: 1 }).waitFor();
		datasetPath = new URL(page.url()).pathname;

		// Case 1: exact match on the expected output, and a number within a tolerance.
		await page.getByRole("button", { name: "Add case" }).click();
		let dialog = page.getByRole("dialog", { name: "New case" });
		await dialog.getByLabel("Input").fill("What is 2+2?");
		await dialog.getByLabel("Expected output").fill("4");
		await dialog.getByRole("button", { name: "Add a scorer" }).click();
		await dialog.getByLabel("Scorer 2 type").selectOption({ label: "Number" });
		await dialog.getByLabel("Scorer 2 tolerance").fill("0.5");
		await dialog.getByRole("button", { name: "Add case" }).click();
		await dialog.waitFor({ state: "detached" });
		await page.getByRole("table", { name: "Cases" }).getByRole("row", { name: /What is 2\+2\?/ }).getByText("Number ± 0.5").waitFor();

		// Case 2: a regular expression RE2 cannot run is refused next to its field; then "contains" the expected output.
		await page.getByRole("button", { name: "Add case" }).click();
		dialog = page.getByRole("dialog", { name: "New case" });
		await dialog.getByLabel("Input").fill("What is the capital of France?");
		await dialog.getByLabel("Expected output").fill("Paris");
		await dialog.getByLabel("Scorer 1 type").selectOption({ label: "Regular expression" });
		await dialog.getByLabel("Scorer 1 pattern").fill("(P)\\1");
		await dialog.getByRole("button", { name: "Add case" }).click();
		await dialog.getByText(/^Backreferences .* not supported/).waitFor();
		await expect(dialog.getByLabel("Scorer 1 pattern").getAttribute("aria-invalid")).resolves.toBe("true");
		await dialog.getByLabel("Scorer 1 type").selectOption({ label: "Contains" });
		await checkDashboardPage(page, "evaluation-case-form");
		await dialog.getByRole("button", { name: "Add case" }).click();
		await dialog.waitFor({ state: "detached" });
		await page.getByText("2 cases.").waitFor();

		// Live: the run's page shows it running, then done, with no reload (a mark set on the document survives).
		await startRun(page, "Version 1 (v1)", async () => {
			await page.getByRole("status").getByText("0 of 2 cases scored").waitFor();
			await page.evaluate("globalThis.sameDocument = true");
		});
		expect(await page.evaluate("globalThis.sameDocument")).toBe(true);
		await page.getByText("100% (2 of 2)").waitFor();
		// Once the run is over the page stops asking (polling backs off to 5 s at most while it runs).
		const asked: string[] = [];
		page.on("request", (request) => {
			if (request.url().includes("/evaluation-runs/")) asked.push(request.url());
		});
		await page.waitForTimeout(5_500);
		expect(asked).toEqual([]);
		await page.getByRole("row", { name: /capital of France/ }).getByText("The capital is Paris.").waitFor();
		const trace = page.getByRole("link", { name: "Trace of case 2" });
		expect(await trace.getAttribute("href")).toMatch(new RegExp(`^${workspacePath()}/traces/trace_`));
		await checkDashboardPage(page, "evaluation-run");

		await page.getByRole("link", { name: "Dataset", exact: true }).click();
		await startRun(page, "Version 2 (v2)");
		await page.getByText("50% (1 of 2)").waitFor();
		await page.getByRole("row", { name: /capital of France/ }).getByText("I am not sure.").waitFor();

		await page.getByRole("link", { name: "Dataset", exact: true }).click();
		await checkDashboardPage(page, "evaluation-dataset");
		const compare = page.getByRole("form", { name: "Compare two runs" });
		expect(await compare.getByLabel("Baseline run").locator("option:checked").textContent()).toMatch(/^orbit version 1/);
		expect(await compare.getByLabel("Candidate run").locator("option:checked").textContent()).toMatch(/^orbit version 2/);
		await compare.getByRole("button", { name: "Compare runs" }).click();
		await page.getByRole("heading", { name: "Compare runs", level: 1 }).waitFor();

		// The regressed case is marked in words, and sorting by verdict puts it first.
		const cases = page.getByRole("table", { name: "Cases of both runs" });
		await cases.getByRole("row", { name: /capital of France/ }).getByText("Regressed").waitFor();
		expect(await cases.getByRole("row", { name: /2\+2/ }).getByText("Unchanged").count()).toBe(1);
		const firstCase = async () => (await cases.locator("tbody tr").first().textContent()) ?? "";
		expect(await firstCase()).toContain("Regressed");
		await cases.getByRole("button", { name: /Case/ }).click();
		expect(await firstCase()).toContain("What is 2+2?");
		await cases.getByRole("button", { name: /Difference/ }).click();
		expect(await cases.getByRole("columnheader", { name: /Difference/ }).getAttribute("aria-sort")).toBe("ascending");
		expect(await firstCase()).toContain("capital of France");
		await page.getByRole("definition").filter({ hasText: "1 case" }).first().waitFor();
		await checkDashboardPage(page, "evaluation-compare");
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Evaluations" }).click();
		await page.getByRole("table", { name: "Latest runs" }).waitFor();
		await checkDashboardPage(page, "evaluations");
		await context.close();
	});

	it("imports cases from a JSON Lines file, naming each line that cannot be a case before anything is sent, and replaces a case from its own form", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, datasetPath);
		await page.getByRole("button", { name: "Import cases" }).click();
		const dialog = page.getByRole("dialog", { name: "Import cases" });
		const lines = [
			JSON.stringify({ input: "Greet me", scorers: [{ type: "regex", pattern: "^hello", flags: "i" }] }),
			"{not json",
			JSON.stringify({ input: "Explain refunds", scorers: [{ type: "contains", value: "30 days" }], colour: "red" }),
			JSON.stringify({ input: "What's your name?", scorers: [{ type: "numeric", tolerance: -1 }] }),
		].join("\n");
		await dialog.getByLabel("Cases file").setInputFiles({ name: "cases.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(lines) });
		await dialog.getByText("cases.jsonl: 2 cases ready, 2 lines refused").waitFor();
		await dialog.getByText(/^Line 2: Not JSON/).waitFor();
		await dialog.getByText("Line 3: Unknown field 'colour': a case has input, messages, variables, expectedOutput, scorers").waitFor();
		await dialog.getByRole("button", { name: "Import 2 cases" }).click();
		await dialog.getByText("1 of 2 cases added, 1 refused by the server").waitFor();
		await dialog.getByText(/^Line 4: scorers\[0\]\.tolerance: /).waitFor();
		await checkDashboardPage(page);
		await dialog.getByRole("button", { name: "Close" }).click();
		await page.getByText("3 cases.").waitFor();

		// Replaced: the form starts from the case; the new one takes its place.
		await page.getByRole("button", { name: "Replace case 1" }).click();
		const replace = page.getByRole("dialog", { name: "Replace case" });
		await expect(replace.getByLabel("Input").inputValue()).resolves.toBe("What is 2+2?");
		await expect(replace.getByLabel("Scorer 2 tolerance").inputValue()).resolves.toBe("0.5");
		await replace.getByLabel("Scorer 2 tolerance").fill("0.25");
		await replace.getByRole("button", { name: "Replace case" }).click();
		await replace.waitFor({ state: "detached" });
		await page.getByRole("table", { name: "Cases" }).getByText("Number ± 0.25").waitFor();
		await page.getByText("3 cases.").waitFor();
		await context.close();
	});

	it("a viewer sees the evaluation pages with no write control offered, and a direct write is refused", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, viewerEmail, `${workspacePath()}/evaluations`);
		await page.getByText("Your role (viewer) can read evaluations").waitFor();
		await page.getByRole("table", { name: "Datasets" }).getByRole("link", { name: "Support smoke test" }).click();
		await page.getByRole("heading", { name: "Support smoke test", level: 1 }).waitFor();
		await page.getByRole("table", { name: "Runs of this dataset" }).waitFor();
		await expect(page.getByRole("button", { name: /New dataset|Add case|Import cases|Replace|Delete|Start run/ }).count()).resolves.toBe(0);
		await checkDashboardPage(page);
		await page.getByRole("table", { name: "Runs of this dataset" }).getByRole("link").first().click();
		await page.getByRole("table", { name: "Cases and their results" }).waitFor();
		await expect(page.getByRole("button", { name: "Cancel run" }).count()).resolves.toBe(0);
		await checkDashboardPage(page);
		await page.getByRole("link", { name: "Dataset", exact: true }).click();
		await page.getByRole("form", { name: "Compare two runs" }).getByRole("button", { name: "Compare runs" }).click();
		await page.getByRole("table", { name: "Cases of both runs" }).getByText("Regressed").waitFor();
		await checkDashboardPage(page);

		// Asked directly, with the viewer's own session and CSRF token, the management API refuses.
		const session = (await (await page.request.get(`${platform.url}/management/session`)).json()) as { csrfToken: string };
		const refused = await page.request.post(`${platform.url}/management${datasetPath.replace("/evaluations/datasets/", "/evaluation-datasets/")}/cases`, {
			headers: { "x-csrf-token": session.csrfToken, origin: platform.url },
			data: { input: "Taken over", scorers: [{ type: "exact_match" }] },
		});
		expect(refused.status()).toBe(403);
		expect(await refused.json()).toMatchObject({ code: "FORBIDDEN" });
		await context.close();
	});
});
