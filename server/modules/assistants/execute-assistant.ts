import type { TAssistantGenerationResult, TAssistantRunInput } from "../../../contract/schemas/runtime";
import type { UseCaseContext } from "../platform-services";
import { executeGeneration } from "../runtime/run-generation";
import { prepareAssistantGeneration } from "./prepare-assistant-generation";

/**
 * Runs a deployed assistant for a person (MCP execute_assistant, the operator CLI): the same
 * generation path as POST /runtime/assistants/:slug, traced with the caller as principal, and the
 * same answer (which version served it, the trace id). API keys are admitted by the request
 * pipeline; a person is held to the workspace's spend quota here.
 */
export async function executeAssistant(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; run: TAssistantRunInput },
): Promise<TAssistantGenerationResult & { version: number }> {
	const generation = await prepareAssistantGeneration(context, input);
	if (context.principal.kind !== "api_key") await context.services.quotas.admitWorkspaceSpend(context.em, generation.origin.workspaceId);
	const result = await executeGeneration(context, generation);
	return { ...result, assistant: generation.served, version: generation.served.version };
}
