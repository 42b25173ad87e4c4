import type { TOpenAiMessage, TChatCompletionRequest } from "../../../contract/schemas/openai-compatible";
import { PROVIDER_NAMES, type TGenerationConfig, type TServedAssistant } from "../../../contract/schemas/runtime";
import type { ProviderName } from "../../db/entities";
import type { ChatMessage, ToolChoice } from "../../providers/types";
import { AppError, type FieldIssue } from "../../shared/app-error";
import { prepareAssistantConversation } from "../assistants/prepare-assistant-generation";
import type { UseCaseContext } from "../platform-services";
import { prepareAdHocGeneration } from "./prepare-ad-hoc-generation";
import type { GenerationOptions, TracedGenerationInput } from "./run-generation";

/** What `model` names: a deployed assistant (in an environment, default production) or a provider's model. */
export type ModelTarget = { kind: "assistant"; slug: string; environment?: string } | { kind: "ad-hoc"; providerName: ProviderName; model: string };

/** A chat completion as a generation; `served` names the assistant version when one answers. */
export type ChatCompletionGeneration = TracedGenerationInput & { served?: TServedAssistant };

const PROVIDER_LIST = PROVIDER_NAMES.join(", ");

/**
 * `provider/model` (split at the first slash: model names may hold more, `openai-compatible/meta-llama/Llama-3`),
 * else `slug` or `slug@environment`. A name that is neither is looked up as an assistant, whose
 * absence (404) says how to name a provider's model.
 */
export function resolveModelName(model: string): ModelTarget {
	const slash = model.indexOf("/");
	if (slash !== -1) {
		const provider = model.slice(0, slash);
		const name = model.slice(slash + 1);
		if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
			throw AppError.validation([{ field: "model", issue: `Unknown provider '${provider}': name a provider's model as provider/model (${PROVIDER_LIST}), or an assistant as slug or slug@environment` }]);
		}
		if (!name) throw AppError.validation([{ field: "model", issue: `Name a model after '${provider}/', e.g. ${provider}/<model>` }]);
		return { kind: "ad-hoc", providerName: provider as ProviderName, model: name };
	}
	const at = model.lastIndexOf("@");
	if (at === -1) return { kind: "assistant", slug: model };
	return { kind: "assistant", slug: model.slice(0, at), environment: model.slice(at + 1) };
}

const textOf = (content: TOpenAiMessage["content"]): string => {
	if (content === undefined || content === null) return "";
	if (typeof content === "string") return content;
	return content.map((part) => part.text).join("");
};

/**
 * OpenAI's messages as ours: `developer` is a system message, text parts are joined, an assistant's
 * `tool_calls` and the `tool` results answering them (client-side tools) keep their ids.
 */
function toConversation(messages: TOpenAiMessage[]): ChatMessage[] {
	const toolNames = new Map<string, string>();
	const fields: FieldIssue[] = [];
	const conversation = messages.map((message, index): ChatMessage => {
		const content = textOf(message.content);
		switch (message.role) {
			case "developer":
			case "system":
				return { role: "system", content };
			case "user":
				return { role: "user", content };
			case "assistant": {
				const toolCalls = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
				for (const call of toolCalls) toolNames.set(call.id, call.name);
				return toolCalls.length > 0 ? { role: "assistant", content, toolCalls } : { role: "assistant", content };
			}
			case "tool": {
				if (message.tool_call_id === undefined) fields.push({ field: `messages[${index}].tool_call_id`, issue: "Required on a tool message: the id of the call it answers" });
				const toolCallId = message.tool_call_id ?? "";
				return { role: "tool", toolCallId, name: toolNames.get(toolCallId) ?? message.name ?? "", content };
			}
		}
	});
	if (fields.length > 0) throw AppError.validation(fields);
	return conversation;
}

/** The caller's tools, for the provider to offer the model (client-side: the caller runs them). */
function toolsOf(request: TChatCompletionRequest): Pick<GenerationOptions, "tools" | "toolChoice"> {
	if (!request.tools || request.tools.length === 0) return {};
	const tools = request.tools.map(({ function: tool }) => ({ name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? { type: "object", properties: {} } }));
	const choice = request.tool_choice;
	const toolChoice: ToolChoice | undefined = choice === undefined ? undefined : typeof choice === "string" ? choice : { name: choice.function.name };
	return toolChoice === undefined ? { tools } : { tools, toolChoice };
}

/** The request's sampling fields as our generation config; only the ones it sets. */
function configOf(request: TChatCompletionRequest): Partial<TGenerationConfig> {
	const config: Partial<TGenerationConfig> = {};
	if (request.temperature !== undefined && request.temperature !== null) config.temperature = request.temperature;
	const maxTokens = request.max_completion_tokens ?? request.max_tokens;
	if (maxTokens !== undefined && maxTokens !== null) config.maxOutputTokens = maxTokens;
	if (request.response_format) config.responseFormat = request.response_format.type === "text" ? "text" : "json";
	return config;
}

function optionsOf(request: TChatCompletionRequest): GenerationOptions | undefined {
	const options: GenerationOptions = {};
	const format = request.response_format;
	if (format?.type === "json_schema") {
		const { name, description, schema, strict } = format.json_schema;
		options.jsonSchema = { name, schema: schema ?? {}, ...(description !== undefined ? { description } : {}), ...(strict !== undefined && strict !== null ? { strict } : {}) };
	}
	if (request.stop !== undefined && request.stop !== null) options.stop = typeof request.stop === "string" ? [request.stop] : request.stop;
	if (request.seed !== undefined && request.seed !== null) options.seed = request.seed;
	if (request.user !== undefined && request.user !== null) options.user = request.user;
	Object.assign(options, toolsOf(request));
	return Object.keys(options).length > 0 ? options : undefined;
}

/**
 * POST /v1/chat/completions: OpenAI's request as one of the runtime's generations, through the same
 * use cases as /runtime/execute and /runtime/assistants/{slug}. A deployed assistant's version fixes
 * provider, model, prompt, knowledge, timeout and retries; the caller's sampling fields override the
 * version's where given. An ad-hoc model runs on the workspace's credential with the runtime's defaults.
 */
export async function prepareChatCompletion(context: UseCaseContext, request: TChatCompletionRequest & { workspaceId?: string }): Promise<ChatCompletionGeneration> {
	const target = resolveModelName(request.model);
	const conversation = toConversation(request.messages);
	const config = configOf(request);
	const options = optionsOf(request);
	if (target.kind === "assistant" && request.tools !== undefined && request.tools.length > 0) {
		throw AppError.validation([{ field: "tools", issue: "A deployed assistant's tools come from its version; it takes none from the caller (client-side tools are for provider/model)" }]);
	}
	if (target.kind === "ad-hoc") {
		const generation = await prepareAdHocGeneration(context, { workspaceId: request.workspaceId, providerName: target.providerName, model: target.model, messages: conversation, config });
		return options ? { ...generation, options } : generation;
	}
	let generation: ChatCompletionGeneration;
	try {
		generation = await prepareAssistantConversation(context, { workspaceId: request.workspaceId, slug: target.slug, environment: target.environment, variables: request.variables, conversation });
	} catch (error) {
		if (error instanceof AppError && error.code === "ASSISTANT_NOT_FOUND") {
			throw new AppError("ASSISTANT_NOT_FOUND", `No assistant '${target.slug}' in this workspace (GET /v1/models lists what can run); for a provider's model, name it as provider/model, e.g. openai/${request.model}`);
		}
		throw error;
	}
	return { ...generation, config: { ...generation.config, ...config }, ...(options ? { options } : {}) };
}
