import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { getKnowledgeDocument } from "../../server/modules/knowledge/get-knowledge-document";
import { listKnowledgeDocuments } from "../../server/modules/knowledge/list-knowledge-documents";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { createUser } from "../../server/modules/tenancy/create-user";
import { launchBrowser, newPersonContext, checkDashboardPage, signInThroughPage } from "../helpers/browser";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "knowledge", name));

/**
 * Knowledge, traces and usage in a real browser against a real server (with its ingestion
 * worker): files dropped on a source become searchable without a reload; generations run through
 * the API are found, opened and counted; a viewer sees it all and can change none of it.
 */
describe("knowledge, traces and usage in the dashboard, in a real browser", { timeout: 300_000 }, () => {
	let platform: TestPlatform;
	let standIn: ProviderStandIn;
	let workspace: TestWorkspace;
	let browser: Browser;
	let viewerEmail: string;

	beforeAll(async () => {
		platform = await startTestPlatform();
		standIn = await startProviderStandIn();
		workspace = await platform.createWorkspace();
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-standin-0123456789", baseUrl: standIn.baseUrl });
		viewerEmail = `viewer-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email: viewerEmail, password: TEST_PASSWORD, organizationId: workspace.organizationId, role: "viewer" });
		standIn.responder = () => ({ kind: "completion", content: ["The harbour opens at dawn."], usage: { prompt_tokens: 1200, completion_tokens: 300 } });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await standIn?.close();
		await platform?.stop();
	});

	const workspacePath = () => `/workspaces/${workspace.workspaceId}`;

	/**
	 * The dashboard at the installation's public address (http://localhost:<port> when PUBLIC_BASE_URL
	 * is unset), where presigned upload URLs point: people open it there.
	 */
	const dashboardUrl = () => platform.url.replace("//127.0.0.1:", "//localhost:");

	const signIn = (context: BrowserContext, email: string, path: string) => signInThroughPage(context, dashboardUrl(), email, path, TEST_PASSWORD);


	/** Files dropped onto the drop zone as a person's drag and drop delivers them (a drop event carrying a DataTransfer). */
	async function dropFiles(page: Page, files: { name: string; type: string; base64: string }[]): Promise<void> {
		const dataTransfer = await page.evaluateHandle((list) => {
			// The page's own DataTransfer and File (this file is compiled without the DOM's types).
			const dom = globalThis as unknown as {
				DataTransfer: new () => { items: { add(file: unknown): void } };
				File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
			};
			const transfer = new dom.DataTransfer();
			for (const file of list) transfer.items.add(new dom.File([Uint8Array.from(atob(file.base64), (character) => character.charCodeAt(0))], file.name, { type: file.type }));
			return transfer;
		}, files);
		await page.getByTestId("dropzone").dispatchEvent("dragover", { dataTransfer });
		await page.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
	}

	const documentStatus = (page: Page, filename: string, status: string) => page.getByRole("status", { name: `${filename}: ${status}` });

	it("journey 1: two files dropped on a source reach READY without a reload, the PDF's sentence is found with its page; an .exe is refused before any byte is sent", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, workspacePath());
		const navigations: string[] = [];
		page.on("framenavigated", (frame) => {
			if (frame === page.mainFrame()) navigations.push(frame.url());
		});
		const sentBodies: string[] = [];
		page.on("request", (request) => {
			if (request.method() !== "GET") sentBodies.push(`${request.url()} ${request.postData() ?? ""}`);
		});

		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Knowledge" }).click();
		await page.getByRole("heading", { name: "Knowledge", level: 1 }).waitFor();
		await page.getByText("No knowledge sources yet.").waitFor();
		await page.getByRole("button", { name: "New source" }).click();
		const create = page.getByRole("dialog", { name: "New knowledge source" });
		await create.getByLabel("Name").fill("Harbour guide");
		await create.getByLabel("Embedding model").selectOption("builtin/builtin-hash-v1");
		await create.getByRole("button", { name: "Create source" }).click();
		await page.getByRole("heading", { name: "Harbour guide", level: 1 }).waitFor();
		await page.getByText("No documents yet.").waitFor();
		const sourceId = new URL(page.url()).pathname.split("/").at(-1) ?? "";
		const navigationsBefore = navigations.length;

		// An .exe is refused on the page, in words, and nothing about it reaches the server.
		await dropFiles(page, [{ name: "setup.exe", type: "application/x-msdownload", base64: Buffer.from("MZ not really a program").toString("base64") }]);
		await page.getByRole("alert").filter({ hasText: "setup.exe: .exe files are not accepted; accepted: .pdf" }).waitFor();
		expect(sentBodies.filter((body) => body.includes("setup.exe"))).toEqual([]);

		// A PDF and a Markdown file at once: each has its own progress bar, then both reach READY on their own.
		const markdown = "# Ferry timetable\n\nThe ferry to Skarvik leaves at nine every weekday morning.\n";
		await dropFiles(page, [
			{ name: "lighthouse.pdf", type: "application/pdf", base64: fixture("lighthouse.pdf").toString("base64") },
			{ name: "ferries.md", type: "", base64: Buffer.from(markdown).toString("base64") },
		]);
		await page.getByRole("progressbar", { name: "Uploading lighthouse.pdf" }).waitFor();
		await page.getByRole("progressbar", { name: "Uploading ferries.md" }).waitFor();
		await documentStatus(page, "lighthouse.pdf", "Ready").waitFor({ timeout: 60_000 });
		await documentStatus(page, "ferries.md", "Ready").waitFor({ timeout: 60_000 });
		const shownReadyAt = Date.now();
		expect(navigations.length, "the page was not reloaded").toBe(navigationsBefore);

		// Live status: the page showed READY within a few seconds of ingestion finishing.
		const documents = await listKnowledgeDocuments(platform.operator(), { workspaceId: workspace.workspaceId, sourceId, limit: 10 });
		const finishedAt = Math.max(...documents.data.map((document) => new Date(document.updatedAt).getTime()));
		expect(shownReadyAt - finishedAt).toBeLessThan(4000);
		expect(documents.data.map((document) => document.status)).toEqual(["READY", "READY"]);

		// The search tester finds the PDF's sentence on page 2, its words marked.
		await page.getByLabel("Question or sentence").fill("The quartz lighthouse of Varnholm blinks seventeen times at dusk.");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		const results = page.getByRole("list", { name: "Search results" });
		const first = results.getByRole("listitem").first();
		await first.getByText("lighthouse.pdf").waitFor();
		await expect(first.textContent()).resolves.toMatch(/lighthouse\.pdf · page 2 · score [01]\.\d{3}/);
		await expect(first.locator("mark", { hasText: /^quartz$/i }).count()).resolves.toBeGreaterThan(0);
		await checkDashboardPage(page, "knowledge-source");

		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Knowledge" }).click();
		await page.getByRole("row", { name: /Harbour guide/ }).getByRole("cell", { name: "2", exact: true }).waitFor();
		await checkDashboardPage(page, "knowledge");
		// Deleting says how many documents go.
		await page.getByRole("button", { name: "Delete Harbour guide" }).click();
		const confirm = page.getByRole("alertdialog", { name: "Delete Harbour guide?" });
		await confirm.getByText("Its 2 documents go with it").waitFor();
		await confirm.getByRole("button", { name: "Cancel" }).click();
		await context.close();
	});

	it("live status: a document ingested while the page is open turns READY on the page within seconds, with no reload", async () => {
		const context = await newPersonContext(browser);
		const sources = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Live", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } } });
		const source = (await sources.json()) as { id: string };
		// Chosen with the file picker this time; the page polls while the document is in flight and stops after.
		const page = await signIn(context, workspace.ownerEmail, `${workspacePath()}/knowledge/${source.id}`);
		await page.getByText("No documents yet.").waitFor();
		await page.getByLabel("Files to upload").setInputFiles({ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n\nThe tide tables are posted at the harbour office.\n") });
		await documentStatus(page, "notes.md", "Ready").waitFor({ timeout: 60_000 });
		const shownAt = Date.now();
		const documents = await listKnowledgeDocuments(platform.operator(), { workspaceId: workspace.workspaceId, sourceId: source.id, limit: 10 });
		const document = await getKnowledgeDocument(platform.operator(), { workspaceId: workspace.workspaceId, sourceId: source.id, documentId: documents.data[0].id });
		expect(document.status).toBe("READY");
		expect(shownAt - new Date(document.updatedAt).getTime()).toBeLessThan(4000);

		// With nothing in flight, the page stops asking.
		const listCalls: string[] = [];
		page.on("request", (request) => {
			if (request.url().includes(`/knowledge-sources/${source.id}/documents`)) listCalls.push(request.url());
		});
		await page.waitForTimeout(4000);
		expect(listCalls).toEqual([]);

		// A file that is not what its name says fails ingestion: the reason is shown in words, with a retry.
		await page.getByLabel("Files to upload").setInputFiles({ name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("this is not a PDF at all") });
		await documentStatus(page, "broken.pdf", "Failed").waitFor({ timeout: 60_000 });
		const failed = page.getByRole("row", { name: /broken\.pdf/ });
		await expect(failed.locator(".field-error").textContent()).resolves.toMatch(/\w+ \w+/);
		await failed.getByRole("button", { name: "Retry broken.pdf" }).waitFor();
		await checkDashboardPage(page);
		await context.close();
	});

	it("journey 2: three generations run through the API are found filtered by assistant, one opened with its messages, tokens and cost; today's usage counts them", async () => {
		const operator = () => platform.operator();
		const workspaceId = workspace.workspaceId;
		for (const slug of ["harbour-bot", "other-bot"]) {
			await createAssistant(operator(), { workspaceId, slug, name: slug === "harbour-bot" ? "Harbour bot" : "Other bot" });
			await updateAssistantDraft(operator(), { workspaceId, slug, patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: `You are ${slug}, answering about the harbour.`, generation: { maxRetries: 0 } } });
			await publishAssistantVersion(operator(), { workspaceId, slug, version: (await createAssistantVersion(operator(), { workspaceId, slug })).version });
		}
		for (const input of ["When does the harbour open?", "Where is the harbour master?", "Can I climb the tower?"]) {
			const response = await platform.request("POST", "/runtime/assistants/harbour-bot", { key: workspace.apiKey, body: { input } });
			expect(response.status).toBe(200);
		}
		const other = await platform.request("POST", "/runtime/assistants/other-bot", { key: workspace.apiKey, body: { input: "Not about the harbour" } });
		expect(other.status).toBe(200);

		const context = await newPersonContext(browser);
		const page = await signIn(context, workspace.ownerEmail, workspacePath());
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Traces" }).click();
		await page.getByRole("heading", { name: "Traces", level: 1 }).waitFor();
		const filters = page.getByRole("form", { name: "Filter traces" });
		await filters.getByLabel("Assistant").selectOption({ label: "Harbour bot" });
		await filters.getByRole("button", { name: "Apply filters" }).click();
		const table = page.getByRole("table", { name: "Generations, newest first" });
		await page.waitForURL((url) => url.searchParams.has("assistantId"));
		await expect.poll(() => table.getByRole("row").count(), { timeout: 10_000 }).toBe(4);
		await expect(table.getByRole("cell", { name: "Other bot" }).count()).resolves.toBe(0);
		await checkDashboardPage(page, "traces");

		// The newest is the last question asked: its messages, tokens and cost.
		await table.getByRole("row").nth(1).getByRole("link").click();
		await page.getByRole("heading", { name: "Trace", level: 1 }).waitFor();
		await page.getByRole("region", { name: "Messages sent" }).getByText("You are harbour-bot, answering about the harbour.").waitFor();
		await page.getByLabel("Input", { exact: true }).getByText("Can I climb the tower?").waitFor();
		await page.getByLabel("Output").getByText("The harbour opens at dawn.").waitFor();
		const metrics = page.locator("dl.trace-metrics");
		// gpt-4o-mini: 1200 input tokens at $0.15 and 300 output at $0.60 per million = $0.00036.
		await expect(metrics.textContent()).resolves.toMatch(/Input tokens1200Output tokens300Cost\$0\.00036/);
		await checkDashboardPage(page, "trace");
		await page.getByRole("link", { name: "Open in playground" }).click();
		await page.waitForURL((url) => url.pathname === `${workspacePath()}/assistants/harbour-bot`);
		await expect(page.getByRole("form", { name: "Playground" }).getByLabel("Input", { exact: true }).inputValue()).resolves.toBe("Can I climb the tower?");

		// Usage today: the four generations, 1500 tokens each.
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" }).click();
		await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
		await page.getByLabel("Range", { exact: true }).selectOption({ label: "Today" });
		const totals = page.getByRole("definition").first();
		await expect.poll(() => totals.textContent(), { timeout: 10_000 }).toBe("4");
		await page.getByRole("img", { name: /Requests and errors per day: 4 requests, 0 errors/ }).waitFor();
		await page.getByRole("img", { name: /Tokens per day: 4800 input and 1200 output tokens/ }).waitFor();
		await page.locator(".recharts-bar-rectangle").first().waitFor();
		await page.getByText("The numbers, day by day").click();
		const today = new Date().toISOString().slice(0, 10);
		await expect(page.getByRole("row", { name: new RegExp(`^${today}`) }).textContent()).resolves.toMatch(new RegExp(`^${today}4048001200\\$0\\.00144`));
		await checkDashboardPage(page, "usage");
		await context.close();
	});

	it("journey 4: a viewer sees knowledge, traces and usage and can change none of it", async () => {
		const context = await newPersonContext(browser);
		const page = await signIn(context, viewerEmail, workspacePath());
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Knowledge" }).click();
		await page.getByText("Your role (viewer) can read knowledge").waitFor();
		await page.getByRole("link", { name: "Harbour guide" }).click();
		await documentStatus(page, "lighthouse.pdf", "Ready").waitFor();
		for (const name of ["New source", "Delete Harbour guide", "Choose files", "Delete lighthouse.pdf", "Retry lighthouse.pdf"]) {
			expect(await page.getByRole("button", { name, exact: true }).count(), name).toBe(0);
		}
		expect(await page.getByTestId("dropzone").count()).toBe(0);
		// Searching is reading: the viewer may.
		await page.getByLabel("Question or sentence").fill("ferry to Skarvik");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await page.getByRole("list", { name: "Search results" }).getByText("ferries.md").first().waitFor();
		// Writes sent straight to the management API with the viewer's own session are refused.
		const attempts = await page.evaluate(async (workspaceId) => {
			const session = (await (await fetch("/management/session")).json()) as { csrfToken: string };
			const headers = { "content-type": "application/json", "x-csrf-token": session.csrfToken };
			const sources = (await (await fetch(`/management/workspaces/${workspaceId}/knowledge-sources`)).json()) as { data: { id: string }[] };
			const create = await fetch(`/management/workspaces/${workspaceId}/knowledge-sources`, { method: "POST", headers, body: JSON.stringify({ name: "Sneaky" }) });
			const upload = await fetch(`/management/workspaces/${workspaceId}/knowledge-sources/${sources.data[0].id}/documents`, {
				method: "POST",
				headers,
				body: JSON.stringify({ filename: "a.md", contentType: "text/markdown", byteSize: 5 }),
			});
			const remove = await fetch(`/management/workspaces/${workspaceId}/knowledge-sources/${sources.data[0].id}`, { method: "DELETE", headers });
			return [create.status, upload.status, remove.status];
		}, workspace.workspaceId);
		expect(attempts).toEqual([403, 403, 403]);

		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Traces" }).click();
		await page.getByRole("table", { name: "Generations, newest first" }).getByRole("row").nth(1).getByRole("link").click();
		await page.getByRole("heading", { name: "Trace", level: 1 }).waitFor();
		await page.getByRole("region", { name: "Output" }).waitFor();
		expect(await page.getByRole("link", { name: "Open in playground" }).count()).toBe(0);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" }).click();
		await page.getByRole("img", { name: /Requests and errors per day/ }).waitFor();
		await context.close();
	});
});
