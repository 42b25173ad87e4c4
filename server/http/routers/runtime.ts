import type { ServerResponse } from "node:http";
import { runtimeContract } from "../../../contract/runtime";
import { prepareAssistantGeneration } from "../../modules/assistants/prepare-assistant-generation";
import type { UseCaseContext } from "../../modules/platform-services";
import { executeGeneration, type GenerationInput, streamGeneration } from "../../modules/runtime/run-generation";
import { ANSWERED, contractRoute, type RouteDefinition, type TypedRouteCall } from "../pipeline";
import { clientPresence, openSseStream } from "../sse";

function adHocInput({ context, body }: TypedRouteCall<typeof runtimeContract.execute>): GenerationInput {
	const principal = context.principal;
	if (principal.kind !== "api_key") throw new Error("The runtime API is called with API keys");
	return {
		origin: { workspaceId: principal.workspaceId, principal },
		providerName: body.providerName,
		model: body.model,
		messages: body.messages,
		config: body.config,
	};
}

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
		contractRoute(runtimeContract.execute, (call) => answer(call.context, call.response, adHocInput(call))),
		contractRoute(runtimeContract.stream, (call) => stream(call.context, call, adHocInput(call))),
		contractRoute(runtimeContract.runAssistant, async (call) =>
			answer(call.context, call.response, await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body })),
		),
		contractRoute(runtimeContract.streamAssistant, async (call) =>
			stream(call.context, call, await prepareAssistantGeneration(call.context, { slug: call.params.slug, run: call.body })),
		),
	];
}
