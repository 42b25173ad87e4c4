import type { EntityManager } from "@mikro-orm/postgresql";
import type { TAssistantRunInput } from "../../../contract/schemas/runtime";
import type { GenerationInput, GenerationOrigin } from "../runtime/run-generation";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import type { Logger } from "../../shared/logger";
import type { DeploymentResolver } from "./deployment-cache";
import { renderPromptTemplate, resolveVariables } from "./render-prompt";
import { formatKnowledgeContext, retrieveKnowledge } from "./retrieve-knowledge-context";

/**
 * A deployed assistant's run as an ordinary generation: the version deployed to the environment
 * fixes provider, model and generation config; messages are the rendered system prompt, then the
 * caller's input. With knowledge attached, the top chunks of each source for the input come between
 * them, as a second system message fenced as untrusted reference material.
 */
export async function prepareAssistantGeneration(
	em: () => EntityManager,
	deployments: DeploymentResolver,
	input: { origin: Omit<GenerationOrigin, "assistant">; slug: string; run: TAssistantRunInput; logger?: Logger },
): Promise<GenerationInput> {
	const environment = input.run.environment ?? DEFAULT_ENVIRONMENT_SLUG;
	const deployment = await deployments.resolve(em, { workspaceId: input.origin.workspaceId, slug: input.slug, environment });
	const { config } = deployment;
	const values = resolveVariables(config.variables, input.run.variables);
	const systemPrompt = renderPromptTemplate(config.systemPrompt, values, config.variables);
	const knowledge = config.knowledge ?? [];
	const chunks = knowledge.length === 0 ? [] : await retrieveKnowledge(em(), { workspaceId: input.origin.workspaceId, query: input.run.input, knowledge, logger: input.logger });
	return {
		origin: { ...input.origin, assistant: { assistantId: deployment.assistantId, versionId: deployment.versionId, environment } },
		providerName: config.provider as GenerationInput["providerName"],
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			{ role: "user" as const, content: input.run.input },
		],
		config: config.generation,
	};
}
