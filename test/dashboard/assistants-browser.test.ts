import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { getAssistantDraft } from "../../server/modules/assistants/get-assistant-draft";
import { createKnowledgeSource } from "../../server/modules/knowledge/create-knowledge-source";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { createUser } from "../../server/modules/tenancy/create-user";
import { launchBrowser, newPersonContext, checkDashboardPage, signInThroughPage } from "../helpers/browser";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

/**
 * Journey 1 in a real browser against a real server: an assistant written, tried in the
 * playground, versioned, published, changed, compared and rolled back, with the runtime API
 * answering from whatever the dashboard made it serve. Controls are found by role and name.
 */
describe("assistants in the dashboard, in a real browser", { timeout: 300_000 }, () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;
	let workspace: TestWorkspace;
	let browser: Browser;
	let viewerEmail: string;

	beforeAll(async () => {
		platform = await startTestPlatform();
		standIn = await startProviderStandIn();
		workspace = await platform.createWorkspace();
		// The operator's use case, as `admin provider-credential set` runs it.
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-standin-0123456789", baseUrl: standIn.baseUrl });
		viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: workspace.organizationId, role: "viewer" });
		// The answer repeats the system prompt it was given, a piece at a time: which version answered is visible in it.
		standIn.responder = (request) => {
			const messages = request.body.messages as { role: string; content: string }[];
			const prompt = messages.find((message) => message.role === "system")?.content ?? "(no prompt)";
			return { kind: "completion", content: ["Answer under: ", ...prompt.split(/(?<= )/)], chunkDelayMs: 150, usage: { prompt_tokens: 40, completion_tokens: 12 } };
		};
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await standIn?.close();
		await platform?.stop();
	});

	const workspacePath = () => `/workspaces/${workspace.workspaceId}`;

	const signIn = (context: BrowserContext, email: string, path: string) => signInThroughPage(context, platform.url, email, path, TEST_PASSWORD);

	/** What the runtime serves now, as a program with an API key gets it. */
	async function runtimeAnswer(): Promise<{ content: string; version: number }> {
		const response = await platform.request("POST", "/runtime/assistants/support-bot", { key: workspace.apiKey, body: { input: "Hi", variables: { customer: "Grace" } } });
		const body = (await response.json()) as { message: { content: string }; assistant: { version: number } };
		expect(response.status, JSON.stringify(body)).toBe(200);
		return { content: body.message.content, version: body.assistant.version };
	}


	const assistantNav = (page: Page) => page.getByRole("navigation", { name: "Assistant pages" });

	async function createVersion(page: Page, note: string, number: number): Promise<void> {
		await page.getByRole("button", { name: "Create version" }).click();
		const dialog = page.getByRole("dialog", { name: "Create a version" });
		await dialog.getByLabel("Note").fill(note);
		await dialog.getByRole("button", { name: "Create version" }).click();
		await page.getByText(`Version ${number} created.`).waitFor();
	}

	async function publish(page: Page, version: number): Promise<void> {
		await assistantNav(page).getByRole("link", { name: "Deployments" }).click();
		await page.getByRole("button", { name: "Publish to production" }).click();
		const dialog = page.getByRole("dialog", { name: "Publish Support bot" });
		await dialog.getByLabel("Version").selectOption(String(version));
		// The confirmation names what will be served, before anything changes.
		await expect(dialog.getByText(`production will serve version ${version}`).textContent()).resolves.toContain(`version ${version}`);
		await dialog.getByRole("button", { name: `Publish version ${version} to production` }).click();
		await dialog.waitFor({ state: "detached" });
		await page.getByRole("row", { name: /Production/ }).getByText(`Version ${version}`).waitFor();
	}

	async function editPrompt(page: Page, prompt: string): Promise<void> {
		await page.getByLabel("System prompt").fill(prompt);
		await page.getByRole("button", { name: "Save draft" }).click();
		await page.getByText("All changes saved.").waitFor();
	}

	it("journey 1: write, try, version, publish, change, compare and roll back; the API answers from what is published", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, workspacePath());
		const consoleErrors: string[] = [];
		page.on("console", (message) => {
			if (message.type() === "error") consoleErrors.push(message.text());
		});

		// Home: the getting-started snippets say to publish an assistant first.
		await page.getByRole("heading", { name: "Getting started" }).waitFor();
		await page.getByText("publish one to fill in its slug").waitFor();

		// Create.
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Assistants" }).click();
		await page.getByRole("heading", { name: "Assistants", level: 1 }).waitFor();
		await page.getByText("No assistants yet.").waitFor();
		await page.getByRole("button", { name: "New assistant" }).click();
		const create = page.getByRole("dialog", { name: "New assistant" });
		await create.getByLabel("Slug").fill("Support Bot!");
		await create.getByLabel("Name").fill("Support bot");
		await create.getByRole("button", { name: "Create assistant" }).click();
		// The server's issue, next to the field it names.
		await create.getByText("Lowercase letters, digits and dashes, at most 63 characters").waitFor();
		await expect(create.getByLabel("Slug").getAttribute("aria-invalid")).resolves.toBe("true");
		await create.getByLabel("Slug").fill("support-bot");
		await create.getByRole("button", { name: "Create assistant" }).click();
		await page.getByRole("heading", { name: "Support bot", level: 1 }).waitFor();
		expect(new URL(page.url()).pathname).toBe(`${workspacePath()}/assistants/support-bot`);

		// A prompt with a variable, declared from the prompt, required.
		await page.getByLabel("System prompt").fill("You are version one, helping {{customer}}.");
		await page.getByText("customer (not declared)").waitFor();
		await page.getByRole("button", { name: "Declare customer" }).click();
		const variable = page.getByRole("group", { name: "Variable customer" });
		await variable.getByLabel("Required").check();
		await variable.getByLabel("Description", { exact: false }).fill("Who is asking");
		await page.getByLabel("Temperature").fill("hot");
		await page.getByRole("button", { name: "Save draft" }).click();
		await page.getByText("Enter a number").waitFor();
		await page.getByLabel("Temperature").fill("3");
		await page.getByRole("button", { name: "Save draft" }).click();
		// The server refuses 3 (0 to 2) and names the field; its words appear under it.
		await page.getByText("Number must be less than or equal to 2").waitFor();
		await expect(page.getByLabel("Temperature").getAttribute("aria-invalid")).resolves.toBe("true");
		await page.getByLabel("Temperature").fill("0.2");
		await page.getByRole("button", { name: "Save draft" }).click();
		await page.getByText("All changes saved.").waitFor();

		// The playground streams the answer, then shows tokens, latency and cost from the trace.
		const playground = page.getByRole("form", { name: "Playground" });
		await playground.getByLabel("customer").fill("Ada");
		await playground.getByLabel("Input").fill("Hello");
		await playground.getByRole("button", { name: "Run" }).click();
		const answer = page.getByRole("status", { name: "Answer" });
		await answer.getByText("Answer under: You are").waitFor();
		// Mid-stream: part of the answer is shown while the rest is still coming.
		expect(await answer.textContent()).not.toContain("helping Ada.");
		await answer.getByText("Answer under: You are version one, helping Ada.").waitFor();
		const metrics = page.locator("dl.metrics");
		await metrics.getByText("$", { exact: false }).waitFor();
		await expect(metrics.textContent()).resolves.toMatch(/Input tokens40Output tokens12Latency[\d.]+ m?s/);
		await checkDashboardPage(page, "assistant-editor");

		// Version 1, published to production: the runtime answers from it.
		await createVersion(page, "First version", 1);
		await publish(page, 1);
		await expect(runtimeAnswer()).resolves.toEqual({ content: "Answer under: You are version one, helping Grace.", version: 1 });
		await checkDashboardPage(page, "assistant-deployments");

		// Unsaved changes are not lost by a stray click.
		await assistantNav(page).getByRole("link", { name: "Editor and playground" }).click();
		await page.getByLabel("System prompt").fill("You are version two, helping {{customer}}.");
		await assistantNav(page).getByRole("link", { name: "Versions" }).click();
		const leave = page.getByRole("dialog", { name: "Leave without saving?" });
		await leave.getByRole("button", { name: "Stay on this page" }).click();
		await expect(page.getByLabel("System prompt").inputValue()).resolves.toBe("You are version two, helping {{customer}}.");

		// Version 2, published: the very next call answers from it.
		await editPrompt(page, "You are version two, helping {{customer}}.\nKeep it short.");
		await createVersion(page, "Second version", 2);
		await publish(page, 2);
		await expect(runtimeAnswer()).resolves.toEqual({ content: "Answer under: You are version two, helping Grace.\nKeep it short.", version: 2 });

		// Versions, and the difference between the two.
		await assistantNav(page).getByRole("link", { name: "Versions" }).click();
		await page.getByRole("cell", { name: "Second version" }).waitFor();
		await checkDashboardPage(page, "assistant-versions");
		const compare = page.getByRole("form", { name: "Compare two versions" });
		await compare.getByLabel("From").selectOption("1");
		await compare.getByLabel("To").selectOption("2");
		await compare.getByRole("button", { name: "Compare" }).click();
		await page.getByText("1 line removed, 2 added.").waitFor();
		const removed = page.getByRole("row", { name: /Removed/ });
		await expect(removed.textContent()).resolves.toContain("You are version one, helping {{customer}}.");
		await expect(page.getByRole("row", { name: /Added/ }).allTextContents()).resolves.toEqual([
			expect.stringContaining("You are version two, helping {{customer}}."),
			expect.stringContaining("Keep it short."),
		]);
		await page.getByText("No setting differs").waitFor();
		await checkDashboardPage(page, "assistant-compare");

		// Roll back in the UI: the confirmation names the version it will serve; the API answers from version 1 again.
		await assistantNav(page).getByRole("link", { name: "Deployments" }).click();
		await page.getByRole("button", { name: "Roll back production" }).click();
		const rollback = page.getByRole("alertdialog", { name: "Roll back production to version 1?" });
		await rollback.getByText("production serves version 2 now").waitFor();
		await rollback.getByRole("button", { name: "Roll back to version 1" }).click();
		await rollback.waitFor({ state: "detached" });
		await page.getByRole("cell", { name: "Rolled back to version 1 (was version 2)" }).waitFor();
		await expect(runtimeAnswer()).resolves.toEqual({ content: "Answer under: You are version one, helping Grace.", version: 1 });

		// Archived: served nowhere, versions kept; restored: served as before.
		await page.getByRole("button", { name: "Archive" }).click();
		const archive = page.getByRole("alertdialog", { name: "Archive Support bot?" });
		await archive.getByText("It stops being served in production (version 1)").waitFor();
		await archive.getByRole("button", { name: "Archive" }).click();
		await page.getByText("Nothing: archived").waitFor();
		const refused = await platform.request("POST", "/runtime/assistants/support-bot", { key: workspace.apiKey, body: { input: "Hi", variables: { customer: "Grace" } } });
		expect(await refused.json()).toMatchObject({ code: "DEPLOYMENT_NOT_FOUND" });
		await page.getByRole("button", { name: "Restore" }).click();
		await page.getByRole("alertdialog", { name: "Restore Support bot?" }).getByRole("button", { name: "Restore" }).click();
		await page.getByRole("button", { name: "Archive" }).waitFor();
		await expect(runtimeAnswer()).resolves.toMatchObject({ version: 1 });

		// The list says what production serves; home fills its snippets with the slug.
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Assistants" }).click();
		await page.getByRole("row", { name: /Support bot/ }).getByText("production: version 1").waitFor();
		await checkDashboardPage(page, "assistants");
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Home" }).click();
		await expect(page.getByLabel("Call an assistant with curl", { exact: true }).textContent()).resolves.toContain(`${platform.url}/runtime/assistants/support-bot`);
		await expect(page.getByLabel("Call it with the TypeScript SDK", { exact: true }).textContent()).resolves.toContain('client.assistants.run("support-bot"');
		await page.getByLabel("MCP server address (Streamable HTTP)", { exact: true }).getByText(`${platform.url}/mcp`).waitFor();
		await checkDashboardPage(page, "home");

		// Environments: create, rename, and production cannot be deleted.
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Environments" }).click();
		await page.getByRole("button", { name: "New environment" }).click();
		const environment = page.getByRole("dialog", { name: "New environment" });
		await environment.getByLabel("Slug").fill("staging");
		await environment.getByLabel("Name").fill("Staging");
		await environment.getByRole("button", { name: "Create environment" }).click();
		await page.getByRole("cell", { name: "staging", exact: true }).waitFor();
		await page.getByRole("button", { name: "Rename staging" }).click();
		const rename = page.getByRole("dialog", { name: "Rename Staging" });
		await rename.getByLabel("Name").fill("Pre-production");
		await rename.getByRole("button", { name: "Save" }).click();
		await page.getByRole("cell", { name: "Pre-production" }).waitFor();
		await expect(page.getByRole("row", { name: /Production/ }).getByRole("button", { name: "Delete" }).isDisabled()).resolves.toBe(true);
		await page.getByText("Always kept: the runtime's default").waitFor();
		await checkDashboardPage(page, "environments");
		await page.getByRole("button", { name: "Delete staging" }).click();
		await page.getByRole("alertdialog", { name: "Delete Pre-production?" }).getByRole("button", { name: "Delete environment" }).click();
		await page.getByRole("cell", { name: "Pre-production" }).waitFor({ state: "detached" });

		expect(consoleErrors.filter((text) => /Content Security Policy|Refused to/.test(text))).toEqual([]);
		await context.close();
	});

	it("attaches a knowledge source with its topK and minScore, the server's refusal shown next to the field", async () => {
		const source = await createKnowledgeSource(platform.operator(), { workspaceId: workspace.workspaceId, name: "Handbook" });
		await createAssistant(platform.operator(), { workspaceId: workspace.workspaceId, slug: "kb-bot", name: "Knowledge bot" });
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, `${workspacePath()}/assistants/kb-bot`);
		await page.getByRole("button", { name: "Attach a source" }).click();
		const attached = page.getByRole("group", { name: "Source 1" });
		await expect(attached.getByLabel("Source").inputValue()).resolves.toBe(source.id);
		await attached.getByLabel("Top K").fill("500");
		await attached.getByLabel("Min score").fill("0.5");
		await page.getByRole("button", { name: "Save draft" }).click();
		await attached.getByText("Number must be less than or equal to 50").waitFor();
		await attached.getByLabel("Top K").fill("3");
		await page.getByRole("button", { name: "Save draft" }).click();
		await page.getByText("All changes saved.").waitFor();
		const draft = await getAssistantDraft(platform.operator(), { workspaceId: workspace.workspaceId, slug: "kb-bot" });
		expect(draft.config.knowledge).toEqual([{ sourceId: source.id, topK: 3, minScore: 0.5 }]);
		await context.close();
	});

	it("an expired session goes to sign-in and back to the same page", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, `${workspacePath()}/assistants/support-bot`);
		await page.getByRole("heading", { name: "Support bot", level: 1 }).waitFor();
		// The session ends elsewhere (sign out everywhere from another device).
		const session = (await (await page.request.get(`${platform.url}/management/session`)).json()) as { csrfToken: string };
		expect((await page.request.delete(`${platform.url}/management/session?everywhere=true`, { headers: { "x-csrf-token": session.csrfToken, origin: platform.url } })).status()).toBe(200);
		// Opened by address: a background refetch of the editor may already have answered 401 and sent the
		// page to sign-in, which would take the link being clicked away.
		await page.goto(`${platform.url}${workspacePath()}/assistants/support-bot/versions`);
		await page.getByRole("heading", { name: "Sign in" }).waitFor();
		await page.getByLabel("Email").fill(workspace.ownerEmail);
		await page.getByLabel("Password").fill(TEST_PASSWORD);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.waitForURL((url) => url.pathname === `${workspacePath()}/assistants/support-bot/versions`);
		await page.getByRole("cell", { name: "Second version" }).waitFor();
		await context.close();
	});

	it("a viewer reads every page with no write control offered, and a direct write is refused", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, viewerEmail, `${workspacePath()}/assistants`);
		await page.getByRole("row", { name: /Support bot/ }).waitFor();
		await expect(page.getByRole("button", { name: "New assistant" }).count()).resolves.toBe(0);
		await checkDashboardPage(page);

		await page.getByRole("link", { name: "Support bot" }).click();
		await page.getByRole("heading", { name: "Support bot", level: 1 }).waitFor();
		await page.getByText("Read only: your role (viewer) cannot change assistants.").waitFor();
		for (const name of ["Save draft", "Create version", "Rename", "Archive", "Add variable", "Declare customer"]) {
			await expect(page.getByRole("button", { name }).count(), name).resolves.toBe(0);
		}
		await expect(page.getByLabel("System prompt").getAttribute("readonly")).resolves.toBe("");
		await expect(page.getByLabel("Provider").isDisabled()).resolves.toBe(true);
		await expect(page.getByRole("form", { name: "Playground" }).getByRole("button", { name: "Run" }).isDisabled()).resolves.toBe(true);
		await page.getByText("running it costs money and needs member or above").waitFor();
		await checkDashboardPage(page);

		await assistantNav(page).getByRole("link", { name: "Versions" }).click();
		await page.getByRole("cell", { name: "Second version" }).waitFor();
		await expect(page.getByRole("button", { name: /^Publish/ }).count()).resolves.toBe(0);
		await assistantNav(page).getByRole("link", { name: "Deployments" }).click();
		await page.getByRole("table", { name: "Deployment history" }).waitFor();
		await expect(page.getByRole("button", { name: /Publish|Roll back/ }).count()).resolves.toBe(0);
		await checkDashboardPage(page);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Environments" }).click();
		await page.getByRole("table", { name: "Environments" }).waitFor();
		await expect(page.getByRole("button", { name: /New environment|Rename|Delete/ }).count()).resolves.toBe(0);

		// Asked directly, with the viewer's own session and CSRF token, the management API refuses.
		const session = (await (await page.request.get(`${platform.url}/management/session`)).json()) as { csrfToken: string };
		const refused = await page.request.patch(`${platform.url}/management/workspaces/${workspace.workspaceId}/assistants/support-bot/draft`, {
			headers: { "x-csrf-token": session.csrfToken, origin: platform.url },
			data: { patch: { systemPrompt: "Taken over" } },
		});
		expect(refused.status()).toBe(403);
		expect(await refused.json()).toMatchObject({ code: "FORBIDDEN" });
		await expect(runtimeAnswer()).resolves.toMatchObject({ version: 1 });
		await context.close();
	});
});
