import { assistantsContract } from "../../../../contract/management/assistants";
import { createAssistant } from "../../../modules/assistants/create-assistant";
import { createAssistantVersion } from "../../../modules/assistants/create-assistant-version";
import { getAssistant } from "../../../modules/assistants/get-assistant";
import { getAssistantDraft } from "../../../modules/assistants/get-assistant-draft";
import { getAssistantVersion } from "../../../modules/assistants/get-assistant-version";
import { listAssistantProviders } from "../../../modules/assistants/list-assistant-providers";
import { listAssistantVersions } from "../../../modules/assistants/list-assistant-versions";
import { listAssistants } from "../../../modules/assistants/list-assistants";
import { listDeployments } from "../../../modules/assistants/list-deployments";
import { publishAssistantVersion } from "../../../modules/assistants/publish-assistant-version";
import { rollbackAssistantDeployment } from "../../../modules/assistants/rollback-assistant-deployment";
import { archiveAssistant, restoreAssistant } from "../../../modules/assistants/set-assistant-archived";
import { streamPlayground } from "../../../modules/assistants/stream-playground";
import { updateAssistant } from "../../../modules/assistants/update-assistant";
import { updateAssistantDraft } from "../../../modules/assistants/update-assistant-draft";
import { ANSWERED, contractRoute, type RouteDefinition } from "../../pipeline";
import { clientPresence, openSseStream } from "../../sse";

/** The dashboard's assistant pages, over the use cases of the MCP assistant tools (same inputs, contract/inputs/assistants.ts). */
export function assistantRoutes(): RouteDefinition[] {
	const a = assistantsContract;
	return [
		contractRoute(a.listAssistants, async ({ context, params, query }) => ({ status: 200, body: { data: await listAssistants(context, { ...params, ...query }) } })),
		contractRoute(a.createAssistant, async ({ context, params, body }) => ({ status: 201, body: await createAssistant(context, { ...params, ...body }) })),
		contractRoute(a.getAssistant, async ({ context, params }) => ({ status: 200, body: await getAssistant(context, params) })),
		contractRoute(a.updateAssistant, async ({ context, params, body }) => ({ status: 200, body: await updateAssistant(context, { ...params, ...body }) })),
		contractRoute(a.archiveAssistant, async ({ context, params }) => ({ status: 200, body: await archiveAssistant(context, params) })),
		contractRoute(a.restoreAssistant, async ({ context, params }) => ({ status: 200, body: await restoreAssistant(context, params) })),
		contractRoute(a.getAssistantDraft, async ({ context, params }) => ({ status: 200, body: await getAssistantDraft(context, params) })),
		contractRoute(a.updateAssistantDraft, async ({ context, params, body }) => ({ status: 200, body: await updateAssistantDraft(context, { ...params, ...body }) })),
		contractRoute(a.listAssistantVersions, async ({ context, params, query }) => ({ status: 200, body: { data: await listAssistantVersions(context, { ...params, ...query }) } })),
		contractRoute(a.createAssistantVersion, async ({ context, params, body }) => ({ status: 201, body: await createAssistantVersion(context, { ...params, ...body }) })),
		contractRoute(a.getAssistantVersion, async ({ context, params }) => ({ status: 200, body: await getAssistantVersion(context, params) })),
		contractRoute(a.listDeployments, async ({ context, params, query }) => ({ status: 200, body: { data: await listDeployments(context, { ...params, ...query }) } })),
		contractRoute(a.publishAssistantVersion, async ({ context, params, body }) => ({ status: 200, body: await publishAssistantVersion(context, { ...params, ...body }) })),
		contractRoute(a.rollbackAssistantDeployment, async ({ context, params, body }) => ({ status: 200, body: await rollbackAssistantDeployment(context, { ...params, ...body }) })),
		contractRoute(a.streamPlayground, async ({ context, params, body, request, response }) => {
			const run = await streamPlayground(context, { ...params, ...body }, clientPresence(response));
			// `done` names the trace (tokens, latency and cost are read from it) and what answered.
			const stream = await openSseStream(request, response, run.events, { done: { traceId: run.traceId, ranOn: run.ranOn } });
			response.statusCode = 200;
			stream.pipe(response);
			return ANSWERED;
		}),
		contractRoute(a.listAssistantProviders, async ({ context, params }) => ({ status: 200, body: { data: await listAssistantProviders(context, params) } })),
	];
}
