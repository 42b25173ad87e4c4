import type { TAssistantRunInput, TServedAssistant } from "../../../contract/schemas/runtime";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";
import type { GenerationInput, TracedGenerationInput } from "../runtime/run-generation";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { authorizeWorkspace } from "../access/authorize";
import { renderPromptTemplate, resolveVariables } from "./render-prompt";
import { prepareAssistantTools } from "./prepare-assistant-tools";
import { formatKnowledgeContext, retrieveKnowledge } from "./retrieve-knowledge-context";

/** A deployed assistant's generation, with the version that serves it and its trace id assigned up front: the answer names both. */
export type AssistantGeneration = TracedGenerationInput & { served: TServedAssistant };

/**
 * A deployed assistant's run as an ordinary generation: the version deployed to the environment
 * fixes provider, model and generation config; messages are the rendered system prompt, then the
 * caller's input. With knowledge attached, the top chunks of each source for the input come between
 * them, as a second system message fenced as untrusted reference material.
 */
export async function prepareAssistantGeneration(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; run: TAssistantRunInput },
): Promise<AssistantGeneration> {
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	const environment = input.run.environment ?? DEFAULT_ENVIRONMENT_SLUG;
	const deployment = await context.services.deployments.resolve(() => context.em, { workspaceId, slug: input.slug, environment });
	const { config } = deployment;
	const values = resolveVariables(config.variables, input.run.variables);
	const systemPrompt = renderPromptTemplate(config.systemPrompt, values, config.variables);
	const knowledge = config.knowledge ?? [];
	const chunks = knowledge.length === 0 ? [] : await retrieveKnowledge(context, { workspaceId, query: input.run.input, knowledge });
	const tools = await prepareAssistantTools(context, workspaceId, config);
	return {
		origin: { workspaceId, principal: context.principal, assistant: { assistantId: deployment.assistantId, versionId: deployment.versionId, environment }, traceId: newId("trace") },
		served: deployment.served,
		providerName: config.provider as GenerationInput["providerName"],
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			{ role: "user" as const, content: input.run.input },
		],
		config: config.generation,
		...(tools ? { tools } : {}),
	};
}
