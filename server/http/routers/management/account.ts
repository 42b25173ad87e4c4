import { accountContract } from "../../../../contract/management/account";
import { listConnections } from "../../../modules/oauth/list-connections";
import { revokeConnection } from "../../../modules/oauth/revoke-connection";
import { AppError } from "../../../shared/app-error";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** The signed-in person's own things (Connected applications), over the same use cases as the operator CLI's `connection` commands. */
export function accountRoutes(): RouteDefinition[] {
	return [
		contractRoute(accountContract.listConnections, async ({ context }) => {
			if (context.principal.kind !== "session") throw new AppError("UNAUTHENTICATED", "Sign in to continue");
			const { data } = await listConnections(context, { userId: context.principal.userId });
			return { status: 200, body: { data: data.map(({ userId: _userId, ...connection }) => connection) } };
		}),
		contractRoute(accountContract.revokeConnection, async ({ context, params }) => {
			return { status: 200, body: await revokeConnection(context, { id: params.connectionId }) };
		}),
	];
}
