import { knowledgeSourcesContract } from "../../../../contract/management/knowledge-sources";
import { listKnowledgeSources } from "../../../modules/knowledge/list-knowledge-sources";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** Knowledge sources as the dashboard reads them, over the knowledge API's use case. */
export function knowledgeSourceRoutes(): RouteDefinition[] {
	return [contractRoute(knowledgeSourcesContract.listKnowledgeSources, async ({ context, params, query }) => ({ status: 200, body: await listKnowledgeSources(context, { ...params, ...query }) }))];
}
