/**
 * The README's OpenAI-compatible examples, run as written: every `js` block (the openai package, the
 * Vercel AI SDK) as a Node module and every `sh` block (curl) in bash, against a real server whose
 * workspace has the assistant `support` of the first steps. Only the server's address changes (a
 * random port). The Python block is documentation: no Python packages can be installed here.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";
import { useRuntimeTestbed, workspaceWithCredential } from "../runtime/runtime-fixtures";

const ROOT = join(import.meta.dirname, "..", "..");
const execFileAsync = promisify(execFile);

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

/** The fenced blocks of one language in the README's OpenAI-compatible section. */
function sectionBlocks(language: string): string[] {
	const readme = readFileSync(join(ROOT, "README.md"), "utf8");
	const start = readme.indexOf("<!-- openai-compatible:");
	expect(start, "the README marks its OpenAI-compatible examples").toBeGreaterThan(-1);
	const section = readme.slice(start, readme.indexOf("\n## ", start));
	return [...section.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]);
}

/** The first steps' assistant: `support`, a prompt with the required variable `company`, published to production. */
async function workspaceWithSupportAssistant(): Promise<string> {
	const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	const { workspaceId } = workspace;
	await createAssistant(platform.operator(), { workspaceId, slug: "support", name: "Support" });
	await updateAssistantDraft(platform.operator(), {
		workspaceId,
		slug: "support",
		patch: { provider: "openai", model: "gpt-4.1-mini", systemPrompt: "You answer customers of {{company}} in one sentence.", variables: [{ name: "company", type: "string", required: true }] },
	});
	await createAssistantVersion(platform.operator(), { workspaceId, slug: "support" });
	await publishAssistantVersion(platform.operator(), { workspaceId, slug: "support", version: 1 });
	return workspace.apiKey;
}

const here = (block: string) => {
	expect(block).toContain("localhost:3000");
	return block.replaceAll("localhost:3000", new URL(platform.url).host);
};

describe("the README's OpenAI-compatible examples, run as written", { timeout: 120_000 }, () => {
	it("has the examples it promises: two js blocks, one sh block, one python block", () => {
		expect(sectionBlocks("js")).toHaveLength(2);
		expect(sectionBlocks("sh")).toHaveLength(1);
		expect(sectionBlocks("python")).toHaveLength(1);
	});

	it.each([0, 1])("js block %i answers, then streams the same answer", async (index) => {
		const apiKey = await workspaceWithSupportAssistant();
		standIn.fallback = { kind: "completion", content: ["Your order ", "ships today."] };
		// In the repository, so that its imports resolve to the installed packages.
		const file = join(ROOT, `.readme-example-${process.pid}-${index}.mjs`);
		await writeFile(file, here(sectionBlocks("js")[index]));
		try {
			const { stdout } = await execFileAsync(process.execPath, [file], { cwd: ROOT, timeout: 60_000, env: { ...process.env, PLATFORM_API_KEY: apiKey } });
			expect(stdout).toBe("Your order ships today.\nYour order ships today.");
		} finally {
			await rm(file, { force: true });
		}
		expect(standIn.requests).toHaveLength(2);
		for (const request of standIn.requests) expect(request.body.messages).toContainEqual({ role: "system", content: "You answer customers of Acme in one sentence." });
	});

	it("the curl block answers a completion, a stream ending in [DONE], and the model list", async () => {
		const apiKey = await workspaceWithSupportAssistant();
		standIn.fallback = { kind: "completion", content: ["Your order ", "ships today."] };
		const { stdout } = await execFileAsync("bash", ["-c", `set -euo pipefail\n${here(sectionBlocks("sh")[0])}`], { cwd: ROOT, timeout: 60_000, env: { ...process.env, PLATFORM_API_KEY: apiKey } });
		// curl prints each answer as it came: the JSON completion, the stream's frames, the JSON model list.
		const streamStart = stdout.indexOf("data: ");
		const streamEnd = stdout.indexOf("data: [DONE]\n\n") + "data: [DONE]\n\n".length;
		expect(JSON.parse(stdout.slice(0, streamStart))).toMatchObject({ object: "chat.completion", choices: [{ message: { content: "Your order ships today." } }] });
		expect(stdout.slice(streamStart, streamEnd)).toContain('"content":"ships today."');
		const models = JSON.parse(stdout.slice(streamEnd));
		expect(models.data.map((model: { id: string }) => model.id)).toEqual(["support", "support@production", "openai/"]);
	});
});
