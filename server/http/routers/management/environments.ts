import { environmentsContract } from "../../../../contract/management/environments";
import { createEnvironment } from "../../../modules/environments/create-environment";
import { deleteEnvironment } from "../../../modules/environments/delete-environment";
import { listEnvironments } from "../../../modules/environments/list-environments";
import { updateEnvironment } from "../../../modules/environments/update-environment";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** Deployment environments, over the use cases of the MCP environment tools. */
export function environmentRoutes(): RouteDefinition[] {
	const e = environmentsContract;
	return [
		contractRoute(e.listEnvironments, async ({ context, params }) => ({ status: 200, body: { data: await listEnvironments(context, params) } })),
		contractRoute(e.createEnvironment, async ({ context, params, body }) => ({ status: 201, body: await createEnvironment(context, { ...params, ...body }) })),
		contractRoute(e.updateEnvironment, async ({ context, params, body }) => ({
			status: 200,
			body: await updateEnvironment(context, { workspaceId: params.workspaceId, slug: params.environment, ...body }),
		})),
		contractRoute(e.deleteEnvironment, async ({ context, params }) => ({ status: 200, body: await deleteEnvironment(context, { workspaceId: params.workspaceId, slug: params.environment }) })),
	];
}
