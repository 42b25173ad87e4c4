import { keysContract } from "../../../../contract/management/keys";
import { createApiKey } from "../../../modules/api-keys/create-api-key";
import { listApiKeys } from "../../../modules/api-keys/list-api-keys";
import { revokeApiKey } from "../../../modules/api-keys/revoke-api-key";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** A workspace's API keys, over the same use cases as the MCP tools and the operator CLI's `api-key` commands. */
export function keysRoutes(): RouteDefinition[] {
	return [
		contractRoute(keysContract.listApiKeys, async ({ context, params, query }) => ({
			status: 200,
			body: { data: await listApiKeys(context, { workspaceId: params.workspaceId, includeRevoked: query.includeRevoked === "true" }) },
		})),
		contractRoute(keysContract.createApiKey, async ({ context, params, body }) => ({ status: 201, body: await createApiKey(context, { ...body, workspaceId: params.workspaceId }) })),
		contractRoute(keysContract.revokeApiKey, async ({ context, params }) => {
			const revoked = await revokeApiKey(context, params);
			return { status: 200, body: { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() } };
		}),
	];
}
