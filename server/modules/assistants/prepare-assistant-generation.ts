import type { TAssistantRunInput, TServedAssistant } from "../../../contract/schemas/runtime";
import type { ChatMessage } from "../../providers/types";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";
import type { GenerationInput, TracedGenerationInput } from "../runtime/run-generation";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { authorizeWorkspace } from "../access/authorize";
import { renderPromptTemplate, resolveVariables, type VariableValue } from "./render-prompt";
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
	const { run } = input;
	return prepareAssistantConversation(context, {
		workspaceId: input.workspaceId,
		slug: input.slug,
		environment: run.environment,
		variables: run.variables,
		conversation: [{ role: "user", content: run.input }],
	});
}

/**
 * The same, for a conversation the caller holds (the OpenAI-compatible surface): its messages follow
 * the version's system prompt (and retrieved knowledge, searched for the last user message).
 */
export async function prepareAssistantConversation(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; environment?: string; variables?: Record<string, VariableValue>; conversation: ChatMessage[] },
): Promise<AssistantGeneration> {
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	const environment = input.environment ?? DEFAULT_ENVIRONMENT_SLUG;
	const deployment = await context.services.deployments.resolve(() => context.em, { workspaceId, slug: input.slug, environment });
	const { config } = deployment;
	const values = resolveVariables(config.variables, input.variables);
	const systemPrompt = renderPromptTemplate(config.systemPrompt, values, config.variables);
	const knowledge = config.knowledge ?? [];
	const query = lastUserMessage(input.conversation);
	const chunks = knowledge.length === 0 || !query ? [] : await retrieveKnowledge(context, { workspaceId, query, knowledge });
	const tools = await prepareAssistantTools(context, workspaceId, config);
	return {
		origin: { workspaceId, principal: context.principal, assistant: { assistantId: deployment.assistantId, versionId: deployment.versionId, environment }, traceId: newId("trace") },
		served: deployment.served,
		providerName: config.provider as GenerationInput["providerName"],
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			...input.conversation,
		],
		config: config.generation,
		...(tools ? { tools } : {}),
	};
}

function lastUserMessage(conversation: ChatMessage[]): string | undefined {
	for (let index = conversation.length - 1; index >= 0; index--) {
		if (conversation[index].role === "user") return conversation[index].content;
	}
	return undefined;
}
