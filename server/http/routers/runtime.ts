import type { ServerResponse } from "node:http";
import { runtimeContract } from "../../../contract/runtime";
import { prepareAssistantGeneration } from "../../modules/assistants/prepare-assistant-generation";
import type { UseCaseContext } from "../../modules/platform-services";
import { prepareAdHocGeneration } from "../../modules/runtime/prepare-ad-hoc-generation";
import { executeGeneration, type GenerationInput, streamGeneration } from "../../modules/runtime/run-generation";
import { ANSWERED, contractRoute, type RouteDefinition, type TypedRouteCall } from "../pipeline";
import { clientPresence, openSseStream } from "../sse";

async function answer(context: UseCaseContext, response: ServerResponse, input: GenerationInput) {
	return { status: 200 as const, body: await executeGeneration(context, input, clientPresence(response)) };
}

async function stream(context: UseCaseContext, { request, response }: Pick<TypedRouteCall<typeof runtimeContract.stream>, "request" | "response">, input: GenerationInput): Promise<typeof ANSWERED> {
	const body = await openSseStream(request, response, streamGeneration(context, input, clientPresence(response)));
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
			answer(call.context, call.response, await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body })),
		),
		contractRoute(runtimeContract.streamAssistant, async (call) =>
			stream(call.context, call, await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body })),
		),
	];
}
