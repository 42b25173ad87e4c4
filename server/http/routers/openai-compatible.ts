import { openAiCompatibleContract } from "../../../contract/openai-compatible";
import { listRuntimeModels } from "../../modules/runtime/list-runtime-models";
import { prepareChatCompletion } from "../../modules/runtime/prepare-chat-completion";
import { executeGeneration, streamGeneration } from "../../modules/runtime/run-generation";
import { chunkEncoder, presentChatCompletion, presentModelList } from "../openai-compatible/openai-wire";
import { ANSWERED, contractRoute, type RouteDefinition } from "../pipeline";
import { openSseStream } from "../sse";
import { callerOf } from "./runtime";

/**
 * The OpenAI-compatible surface: OpenAI's wire format over the runtime's use cases. The pipeline
 * (authentication, scope, rate limit and spend quota, validation, Idempotency-Key) is every
 * contract route's; errors are answered in OpenAI's shape (the contract's `errorFormat`).
 */
export function openAiCompatibleRoutes(): RouteDefinition[] {
	return [
		contractRoute(openAiCompatibleContract.createChatCompletion, async ({ context, request, response, body }) => {
			const generation = await prepareChatCompletion(context, body);
			const identity = { id: generation.origin.traceId, model: body.model, served: generation.served, clientTools: generation.options?.tools !== undefined };
			const caller = callerOf(response, generation.origin.traceId, generation.served);
			if (!body.stream) return { status: 200 as const, body: presentChatCompletion(identity, await executeGeneration(context, generation, caller)) };
			const events = streamGeneration(context, generation, caller);
			const stream = await openSseStream(request, response, events, { encoder: chunkEncoder(identity, body.stream_options?.include_usage === true) });
			response.statusCode = 200;
			stream.pipe(response);
			return ANSWERED;
		}),
		contractRoute(openAiCompatibleContract.listModels, async ({ context }) => ({ status: 200 as const, body: presentModelList(await listRuntimeModels(context)) })),
	];
}
