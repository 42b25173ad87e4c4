import { initServer } from "@ts-rest/express";
import type { Request } from "express";
import { runtimeContract } from "../../../contract/runtime";
import type { TAssistantRunInput, TExecuteRequest } from "../../../contract/schemas/runtime";
import { prepareAssistantGeneration } from "../../modules/assistants/prepare-assistant-generation";
import { type GenerationInput, executeGeneration, type RuntimeDependencies, streamGeneration } from "../../modules/runtime/run-generation";
import { type HttpDependencies, principalOf } from "../context";
import { abortSignalOnClientClose, openSseStream } from "../sse";

/** The runtime routes served so far; the rest of runtimeContract joins as it is built. */
export const runtimeRoutes = {
	execute: runtimeContract.execute,
	stream: runtimeContract.stream,
	runAssistant: runtimeContract.runAssistant,
	streamAssistant: runtimeContract.streamAssistant,
};

function adHocInput(request: Request, body: TExecuteRequest): GenerationInput {
	const principal = principalOf(request);
	return {
		origin: { workspaceId: principal.workspaceId, apiKeyId: principal.apiKeyId },
		providerName: body.providerName,
		model: body.model,
		messages: body.messages,
		config: body.config,
	};
}

function assistantInput(runtime: RuntimeDependencies, request: Request, slug: string, run: TAssistantRunInput): Promise<GenerationInput> {
	const principal = principalOf(request);
	return prepareAssistantGeneration(runtime.em(), runtime.deployments, {
		origin: { workspaceId: principal.workspaceId, apiKeyId: principal.apiKeyId },
		slug,
		run,
		logger: runtime.logger,
	});
}

/** ts-rest types the SSE body as the contract's string; at run time it pipes the Readable we return. */
type SseBody = string;

export function createRuntimeRouter(dependencies: HttpDependencies & { runtime: RuntimeDependencies }) {
	const { runtime } = dependencies;
	return initServer().router(runtimeRoutes, {
		execute: async ({ body, req, res }) => ({
			status: 200,
			body: await executeGeneration(runtime, adHocInput(req, body), abortSignalOnClientClose(res)),
		}),
		stream: async ({ body, req, res }) => ({
			status: 200,
			body: (await openSseStream(req, res, streamGeneration(runtime, adHocInput(req, body), abortSignalOnClientClose(res)))) as unknown as SseBody,
		}),
		runAssistant: async ({ params, body, req, res }) => ({
			status: 200,
			body: await executeGeneration(runtime, await assistantInput(runtime, req, params.slug, body), abortSignalOnClientClose(res)),
		}),
		streamAssistant: async ({ params, body, req, res }) => {
			const input = await assistantInput(runtime, req, params.slug, body);
			return { status: 200, body: (await openSseStream(req, res, streamGeneration(runtime, input, abortSignalOnClientClose(res)))) as unknown as SseBody };
		},
	});
}
