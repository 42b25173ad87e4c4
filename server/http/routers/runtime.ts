import type { IncomingMessage, ServerResponse } from "node:http";
import { runtimeContract } from "../../../contract/runtime";
import type { TAssistantRunInput } from "../../../contract/schemas/runtime";
import type { ApiKeyPrincipal } from "../../modules/api-keys/authenticate-api-key";
import { prepareAssistantGeneration } from "../../modules/assistants/prepare-assistant-generation";
import { type GenerationInput, executeGeneration, type RuntimeDependencies, streamGeneration } from "../../modules/runtime/run-generation";
import { sendJson } from "../middleware/errors";
import { nodeRoute, type NodeRoute, type NodeRouteContext } from "../node-router";
import { clientPresence, openSseStream } from "../sse";

function assistantInput(runtime: RuntimeDependencies, principal: ApiKeyPrincipal, slug: string, run: TAssistantRunInput): Promise<GenerationInput> {
	return prepareAssistantGeneration(runtime.em, runtime.deployments, {
		origin: { workspaceId: principal.workspaceId, apiKeyId: principal.apiKeyId },
		slug,
		run,
		logger: runtime.logger,
	});
}

function adHocInput({ principal, body }: NodeRouteContext<typeof runtimeContract.execute>): GenerationInput {
	return {
		origin: { workspaceId: principal.workspaceId, apiKeyId: principal.apiKeyId },
		providerName: body.providerName,
		model: body.model,
		messages: body.messages,
		config: body.config,
	};
}

interface Exchange {
	request: IncomingMessage;
	response: ServerResponse;
}

async function answer(runtime: RuntimeDependencies, { response }: Exchange, input: GenerationInput): Promise<void> {
	sendJson(response, 200, await executeGeneration(runtime, input, clientPresence(response)));
}

async function stream(runtime: RuntimeDependencies, { request, response }: Exchange, input: GenerationInput): Promise<void> {
	const body = await openSseStream(request, response, streamGeneration(runtime, input, clientPresence(response)));
	response.statusCode = 200;
	body.pipe(response);
}

/** The runtime routes, served on the node router (server/http/node-router.ts): the hot path. */
export function runtimeRoutes(runtime: RuntimeDependencies): NodeRoute[] {
	return [
		nodeRoute(runtimeContract.execute, (context) => answer(runtime, context, adHocInput(context))),
		nodeRoute(runtimeContract.stream, (context) => stream(runtime, context, adHocInput(context))),
		nodeRoute(runtimeContract.runAssistant, async (context) =>
			answer(runtime, context, await assistantInput(runtime, context.principal, context.params.slug, context.body)),
		),
		nodeRoute(runtimeContract.streamAssistant, async (context) =>
			stream(runtime, context, await assistantInput(runtime, context.principal, context.params.slug, context.body)),
		),
	];
}
