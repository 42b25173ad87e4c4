import type { TGenerationResult } from "../../../contract/schemas/runtime";
import { type AssistantConfig, AssistantDraftSchema, AssistantVersionSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { executeGeneration, type GenerationInput } from "../runtime/run-generation";
import { findAssistant } from "./find-assistant";
import { renderPromptTemplate, resolveVariables, type VariableValue } from "./render-prompt";
import { formatKnowledgeContext, retrieveKnowledge } from "./retrieve-knowledge-context";

/**
 * One turn against an assistant's draft (default) or a pinned version, before or without deploying
 * it: the same prompt rendering, knowledge retrieval and generation path as the runtime, traced as
 * kind `playground` and counted against the workspace's spend quota.
 */
export async function runPlayground(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; version?: number; input: string; variables?: Record<string, VariableValue> },
): Promise<TGenerationResult & { ranOn: "draft" | number }> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	const assistant = await findAssistant(em, workspaceId, input.slug);
	let config: AssistantConfig;
	let versionId: string | null = null;
	if (input.version === undefined) {
		config = (await em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id })).config;
	} else {
		const version = await em.findOne(AssistantVersionSchema, { assistant: assistant.id, version: input.version });
		if (!version) throw AppError.validation([{ field: "version", issue: `Assistant '${input.slug}' has no version ${input.version}` }]);
		config = version.config;
		versionId = version.id;
	}
	if (context.principal.kind !== "api_key") await context.services.quotas.admitWorkspaceSpend(em, workspaceId);
	const values = resolveVariables(config.variables, input.variables);
	const systemPrompt = renderPromptTemplate(config.systemPrompt, values, config.variables);
	const chunks = config.knowledge.length === 0 ? [] : await retrieveKnowledge(context, { workspaceId, query: input.input, knowledge: config.knowledge });
	const result = await executeGeneration(context, {
		origin: { workspaceId, principal: context.principal, playground: { assistantId: assistant.id, versionId } },
		providerName: config.provider as GenerationInput["providerName"],
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			{ role: "user" as const, content: input.input },
		],
		config: config.generation,
	});
	return { ...result, ranOn: input.version ?? "draft" };
}
