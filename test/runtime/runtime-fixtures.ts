import { afterAll, beforeAll, beforeEach } from "vitest";
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
