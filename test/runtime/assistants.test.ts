import { describe, expect, it } from "vitest";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { rollbackAssistantDeployment } from "../../server/modules/assistants/rollback-assistant-deployment";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { parseSseFrames, type ProviderStandIn } from "../helpers/provider-stand-in";
import type { TestPlatform } from "../helpers/platform";
import { workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";
import { runOperatorCli } from "../helpers/operator-cli";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

async function admin(...args: string[]) {
	const { code, stdout, stderr } = await runOperatorCli(platform.databaseUrl, args);
	if (code !== 0) throw new Error(`admin ${args.join(" ")} exited ${code}: ${stderr}`);
	return JSON.parse(stdout);
}

async function deployedAssistant(slug = "support-bot") {
	const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
	const em = () => platform.operator();
	await createAssistant(em(), { workspaceId: workspace.workspaceId, slug, name: "Support" });
	await updateAssistantDraft(em(), {
		workspaceId: workspace.workspaceId,
		slug,
		patch: {
			provider: "openai",
			model: "gpt-4o-mini",
			systemPrompt: "You help {{customerName}} (tier {{ tier }}, vip={{vip}}).",
			variables: [
				{ name: "customerName", type: "string", required: true },
				{ name: "tier", type: "number", required: false, default: 1 },
				{ name: "vip", type: "boolean", required: false },
			],
			generation: { temperature: 0.2, maxRetries: 0 },
		},
	});
	const version = await createAssistantVersion(em(), { workspaceId: workspace.workspaceId, slug });
	await publishAssistantVersion(em(), { workspaceId: workspace.workspaceId, slug, version: version.version });
	return workspace;
}

const runAssistant = async (key: string, slug: string, body: unknown, stream = false) => {
	const response = await platform.request("POST", `/runtime/assistants/${slug}${stream ? "/stream" : ""}`, { key, body });
	const text = await response.text();
	return { status: response.status, text, body: stream ? undefined : JSON.parse(text) };
};

describe("deployed assistants", () => {
	it("renders the version's prompt with variables and defaults, and uses its provider, model and config", async () => {
		const { apiKey } = await deployedAssistant();
		standIn.script({ kind: "completion", content: "Hello Ada" });
		const result = await runAssistant(apiKey, "support-bot", { input: "Where is my order?", variables: { customerName: "Ada", vip: true } });
		expect(result.status).toBe(200);
		expect(result.body.message.content).toBe("Hello Ada");
		expect(standIn.requests[0].body).toMatchObject({
			model: "gpt-4o-mini",
			temperature: 0.2,
			messages: [
				{ role: "system", content: "You help Ada (tier 1, vip=true)." },
				{ role: "user", content: "Where is my order?" },
			],
		});
	});

	it("streams a deployed assistant", async () => {
		const { apiKey } = await deployedAssistant();
		standIn.script({ kind: "completion", content: ["Hi", " Ada"] });
		const result = await runAssistant(apiKey, "support-bot", { input: "hi", variables: { customerName: "Ada" } }, true);
		expect(parseSseFrames(result.text).map((frame) => frame.event)).toEqual(["delta", "delta", "usage", "done"]);
	});

	it("validates variables: missing required, wrong type, undeclared", async () => {
		const { apiKey } = await deployedAssistant();
		const result = await runAssistant(apiKey, "support-bot", { input: "hi", variables: { tier: "gold", extra: 1 } });
		expect(result.status).toBe(400);
		expect(result.body.code).toBe("VALIDATION_ERROR");
		expect(result.body.fields.map((field: { field: string }) => field.field).sort()).toEqual(["variables.customerName", "variables.extra", "variables.tier"]);
		expect(standIn.requests).toHaveLength(0);
	});

	it("answers 404 ASSISTANT_NOT_FOUND for an unknown slug and DEPLOYMENT_NOT_FOUND for an undeployed environment", async () => {
		const { apiKey, workspaceId } = await deployedAssistant();
		const unknown = await runAssistant(apiKey, "nobody", { input: "hi" });
		expect(unknown.status).toBe(404);
		expect(unknown.body.code).toBe("ASSISTANT_NOT_FOUND");
		const otherEnvironment = await runAssistant(apiKey, "support-bot", { input: "hi", variables: { customerName: "A" }, environment: "staging" });
		expect(otherEnvironment.status).toBe(404);
		expect(otherEnvironment.body.code).toBe("DEPLOYMENT_NOT_FOUND");
		await createAssistant(platform.operator(), { workspaceId, slug: "draft-only", name: "Draft" });
		const undeployed = await runAssistant(apiKey, "draft-only", { input: "hi" });
		expect(undeployed.body.code).toBe("DEPLOYMENT_NOT_FOUND");
	});

	it("does not serve another workspace's assistant", async () => {
		await deployedAssistant("private-bot");
		const stranger = await platform.createWorkspace();
		const result = await runAssistant(stranger.apiKey, "private-bot", { input: "hi" });
		expect(result.status).toBe(404);
		expect(result.body.code).toBe("ASSISTANT_NOT_FOUND");
	});

	it("serves a version published by the operator CLI on the very next call, and a rollback likewise", async () => {
		const { apiKey, workspaceId } = await deployedAssistant("cli-bot");
		// The cache is live (not reading through), so this proves invalidation across processes.
		expect(platform.services.notifications.listening).toBe(true);
		// Warm the cache with version 1.
		await runAssistant(apiKey, "cli-bot", { input: "one", variables: { customerName: "Ada" } });
		expect(standIn.requests[0].body.model).toBe("gpt-4o-mini");

		await admin("assistant", "update-draft", "--workspace", workspaceId, "--slug", "cli-bot", "--model", "gpt-4.1", "--system-prompt", "Version two", "--variables", "[]");
		const version = await admin("assistant", "create-version", "--workspace", workspaceId, "--slug", "cli-bot", "--note", "v2");
		expect(version.version).toBe(2);
		const published = await admin("assistant", "publish", "--workspace", workspaceId, "--slug", "cli-bot", "--version", "2");
		expect(published).toMatchObject({ version: 2, previousVersion: 1, environment: "production" });

		await runAssistant(apiKey, "cli-bot", { input: "two" });
		expect(standIn.requests[1].body).toMatchObject({ model: "gpt-4.1", messages: [{ role: "system", content: "Version two" }, { role: "user", content: "two" }] });

		await rollbackAssistantDeployment(platform.operator(), { workspaceId, slug: "cli-bot" });
		await runAssistant(apiKey, "cli-bot", { input: "three", variables: { customerName: "Ada" } });
		expect(standIn.requests[2].body.model).toBe("gpt-4o-mini");
		// Three operator CLI processes, each building the platform's services: a bound for a hang, not a speed test.
	}, 120_000);
});
