import { credentialsContract } from "../../../../contract/management/credentials";
import { deleteProviderCredential } from "../../../modules/provider-credentials/delete-provider-credential";
import { listProviderCredentials } from "../../../modules/provider-credentials/list-provider-credentials";
import { setProviderCredential } from "../../../modules/provider-credentials/set-provider-credential";
import { testProviderCredential } from "../../../modules/provider-credentials/test-provider-credential";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** A workspace's provider credentials, over the same use cases as the MCP tools and the operator CLI's `provider-credential` commands. */
export function credentialsRoutes(): RouteDefinition[] {
	return [
		contractRoute(credentialsContract.listProviderCredentials, async ({ context, params }) => ({ status: 200, body: { data: await listProviderCredentials(context, params) } })),
		contractRoute(credentialsContract.setProviderCredential, async ({ context, params, body }) => ({ status: 200, body: await setProviderCredential(context, { ...body, ...params }) })),
		contractRoute(credentialsContract.deleteProviderCredential, async ({ context, params }) => ({ status: 200, body: await deleteProviderCredential(context, params) })),
		contractRoute(credentialsContract.testProviderCredential, async ({ context, params }) => ({ status: 200, body: await testProviderCredential(context, params) })),
	];
}
