import OpenAI from "openai";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { createEnvironment } from "../../server/modules/environments/create-environment";
import type { TestPlatform, TestWorkspace } from "../helpers/platform";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";

/** The official OpenAI Node client, pointed at the server's OpenAI-compatible surface with an API key. */
export function openAiClient(platform: { url: string }, apiKey: string, options: { maxRetries?: number } = {}): OpenAI {
	return new OpenAI({ baseURL: `${platform.url}/v1`, apiKey, maxRetries: options.maxRetries ?? 0 });
}

/**
 * A workspace whose OpenAI credential points at the stand-in, with "support-bot": version 1
 * (model-one) serves production, version 2 (model-two, a prompt with a required variable) serves
 * staging.
 */
export async function workspaceWithAssistant(platform: TestPlatform, standInBaseUrl: string): Promise<TestWorkspace> {
	const workspace = await workspaceWithCredential(platform, "openai", standInBaseUrl);
	const context = () => platform.operator();
	const { workspaceId } = workspace;
	const slug = "support-bot";
	await createAssistant(context(), { workspaceId, slug, name: "Support" });
	await createEnvironment(context(), { workspaceId, slug: "staging", name: "Staging" });
	await updateAssistantDraft(context(), { workspaceId, slug, patch: { provider: "openai", model: "model-one", systemPrompt: "Be brief.", generation: { maxRetries: 0 } } });
	await createAssistantVersion(context(), { workspaceId, slug });
	await updateAssistantDraft(context(), {
		workspaceId,
		slug,
		patch: {
			model: "model-two",
			systemPrompt: "You answer customers of {{company}} (tier {{tier}}).",
			variables: [
				{ name: "company", type: "string", required: true },
				{ name: "tier", type: "number", default: 1 },
			],
			generation: { temperature: 0.3, maxRetries: 0 },
		},
	});
	await createAssistantVersion(context(), { workspaceId, slug });
	await publishAssistantVersion(context(), { workspaceId, slug, version: 1 });
	await publishAssistantVersion(context(), { workspaceId, slug, version: 2, environment: "staging" });
	return workspace;
}
