import type { ServerResponse } from "node:http";
import { runtimeContract } from "../../../contract/runtime";
import { GENERATION_HEADERS, type TServedAssistant } from "../../../contract/schemas/runtime";
import { type AssistantGeneration, prepareAssistantGeneration } from "../../modules/assistants/prepare-assistant-generation";
import type { UseCaseContext } from "../../modules/platform-services";
import { prepareAdHocGeneration } from "../../modules/runtime/prepare-ad-hoc-generation";
import { executeGeneration, type GenerationCaller, streamGeneration, type TracedGenerationInput } from "../../modules/runtime/run-generation";
import { ANSWERED, contractRoute, type RouteDefinition, type TypedRouteCall } from "../pipeline";
import { clientPresence, openSseStream } from "../sse";

/**
 * The client as a generation sees it, and the headers naming what serves it: set once the
 * generation reached its provider (from then on it is traced), so they come with the JSON answer,
 * with the stream's opening, and with an error answered after that point.
 */
export function callerOf(response: ServerResponse, traceId: string, served: TServedAssistant | undefined): GenerationCaller {
	return clientPresence(response, () => {
		if (response.headersSent) return;
		response.setHeader(GENERATION_HEADERS.traceId, traceId);
		if (served) {
			response.setHeader(GENERATION_HEADERS.assistantVersion, String(served.version));
			response.setHeader(GENERATION_HEADERS.assistantEnvironment, served.environment);
		}
	});
}

async function answer(context: UseCaseContext, response: ServerResponse, input: TracedGenerationInput) {
	return { status: 200 as const, body: await executeGeneration(context, input, callerOf(response, input.origin.traceId, undefined)) };
}

async function answerAssistant(context: UseCaseContext, response: ServerResponse, input: AssistantGeneration) {
	const result = await executeGeneration(context, input, callerOf(response, input.origin.traceId, input.served));
	return { status: 200 as const, body: { ...result, assistant: input.served } };
}

async function stream(
	context: UseCaseContext,
	{ request, response }: Pick<TypedRouteCall<typeof runtimeContract.stream>, "request" | "response">,
	input: TracedGenerationInput,
	served?: TServedAssistant,
): Promise<typeof ANSWERED> {
	const { traceId } = input.origin;
	const events = streamGeneration(context, input, callerOf(response, traceId, served));
	// `done` repeats what the headers said, for clients that read only the events.
	const body = await openSseStream(request, response, events, { done: served ? { traceId, assistant: served } : { traceId } });
	response.statusCode = 200;
	body.pipe(response);
	return ANSWERED;
}

/** The runtime routes: the hot path, through the same pipeline as every contract route. */
export function runtimeRoutes(): RouteDefinition[] {
	return [
		contractRoute(runtimeContract.execute, async (call) => answer(call.context, call.response, await prepareAdHocGeneration(call.context, call.body))),
		contractRoute(runtimeContract.stream, async (call) => stream(call.context, call, await prepareAdHocGeneration(call.context, call.body))),
		contractRoute(runtimeContract.runAssistant, async (call) =>
			answerAssistant(call.context, call.response, await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body })),
		),
		contractRoute(runtimeContract.streamAssistant, async (call) => {
			const generation = await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body });
			return stream(call.context, call, generation, generation.served);
		}),
	];
}
