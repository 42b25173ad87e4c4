import { organizationsContract } from "../../../../contract/management/organizations";
import { setOrganizationMcpAdministration } from "../../../modules/oauth/set-organization-mcp-administration";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** An organization's settings, over the same use case as the operator CLI's `organization set`. */
export function organizationsRoutes(): RouteDefinition[] {
	return [
		contractRoute(organizationsContract.setOrganizationMcpAdministration, async ({ context, params, body }) => ({
			status: 200,
			body: await setOrganizationMcpAdministration(context, { ...params, ...body }),
		})),
	];
}
