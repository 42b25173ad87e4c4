import type { z } from "zod";
import { ZRunPlaygroundInput } from "../../../contract/inputs/assistants";
import { type AssistantConfig, AssistantDraftSchema, AssistantVersionSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import type { GenerationInput, TracedGenerationInput } from "../runtime/run-generation";
import { findAssistant } from "./find-assistant";
import { renderPromptTemplate, resolveVariables } from "./render-prompt";
import { prepareAssistantTools } from "./prepare-assistant-tools";
import { formatKnowledgeContext, retrieveKnowledge } from "./retrieve-knowledge-context";

/** A playground turn ready to run: its trace id assigned up front (the answer names it), and what it ran on. */
export type PlaygroundGeneration = TracedGenerationInput & { ranOn: "draft" | number };

/**
 * One turn against an assistant's draft (default) or a pinned version, before or without deploying
 * it: the same prompt rendering, knowledge retrieval and generation input as the runtime, traced as
 * kind `playground` and admitted against the workspace's spend quota. Answered whole (runPlayground)
 * or streamed (streamPlayground).
 */
export async function preparePlaygroundGeneration(context: UseCaseContext, rawInput: z.input<typeof ZRunPlaygroundInput>): Promise<PlaygroundGeneration> {
	const { em } = context;
	const input = parseInput(ZRunPlaygroundInput, rawInput);
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
	const tools = await prepareAssistantTools(context, workspaceId, config);
	return {
		origin: { workspaceId, principal: context.principal, playground: { assistantId: assistant.id, versionId }, traceId: newId("trace") },
		ranOn: input.version ?? "draft",
		providerName: config.provider as GenerationInput["providerName"],
		model: config.model,
		messages: [
			...(systemPrompt ? [{ role: "system" as const, content: systemPrompt }] : []),
			...(chunks.length > 0 ? [{ role: "system" as const, content: formatKnowledgeContext(chunks) }] : []),
			{ role: "user" as const, content: input.input },
		],
		config: config.generation,
		...(tools ? { tools } : {}),
	};
}
