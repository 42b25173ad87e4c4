import { afterAll, beforeAll, beforeEach } from "vitest";
import type { AssistantTool } from "../../contract/inputs/assistant-tools";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

export const PROVIDER_KEY = "sk-standin-SECRET-0123456789abcdef";

/** A workspace whose credential for `provider` points at the stand-in. */
export async function workspaceWithCredential(platform: TestPlatform, provider: string, baseUrl: string, apiKey = PROVIDER_KEY): Promise<TestWorkspace> {
	const workspace = await platform.createWorkspace();
	await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider, apiKey, baseUrl });
	return workspace;
}

/** An assistant on the stand-in's gpt-4o-mini with `tools`, published as `slug` (no retries: each model call is one request). */
export async function deployAssistantWithTools(platform: TestPlatform, workspace: TestWorkspace, slug: string, tools: AssistantTool[]): Promise<void> {
	const context = () => platform.operator();
	const { workspaceId } = workspace;
	await createAssistant(context(), { workspaceId, slug, name: slug });
	await updateAssistantDraft(context(), {
		workspaceId,
		slug,
		patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: "You use tools.", variables: [], generation: { maxRetries: 0 }, knowledge: [], tools },
	});
	const version = await createAssistantVersion(context(), { workspaceId, slug });
	await publishAssistantVersion(context(), { workspaceId, slug, version: version.version });
}

export function executeBody(overrides: Record<string, unknown> = {}) {
	return { providerName: "openai", model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello." }], ...overrides };
}

/**
 * The runtime test files' shared setup: one server and one provider stand-in per file, the
 * stand-in's script and recordings cleared before each test. `use` receives both once started.
 */
export function useRuntimeTestbed(use: (testbed: { platform: TestPlatform; standIn: ProviderStandIn }) => void): void {
	let platform: TestPlatform | undefined;
	let standIn: ProviderStandIn | undefined;
	beforeAll(async () => {
		platform = await startTestPlatform();
		standIn = await startProviderStandIn();
		use({ platform, standIn });
	});
	afterAll(async () => {
		await standIn?.close();
		await platform?.stop();
	});
	beforeEach(() => standIn?.reset());
}
