import { invitationsContract } from "../../../../contract/management/invitations";
import { acceptInvitation } from "../../../modules/invitations/accept-invitation";
import { createInvitation } from "../../../modules/invitations/create-invitation";
import { describeInvitation } from "../../../modules/invitations/describe-invitation";
import { listInvitations } from "../../../modules/invitations/list-invitations";
import { revokeInvitation } from "../../../modules/invitations/revoke-invitation";
import { contractRoute, type RouteDefinition } from "../../pipeline";
import { startDashboardSession } from "./session";

/**
 * Invitations: made, listed and revoked by the organization's admins (the same use cases as the
 * MCP tools and the operator CLI's `invitation` commands); described and accepted by the person
 * invited, before they have a session. Accepting signs them in as signing in does.
 */
export function invitationsRoutes(): RouteDefinition[] {
	return [
		contractRoute(invitationsContract.listInvitations, async ({ context, params }) => ({ status: 200, body: { data: await listInvitations(context, params) } })),
		contractRoute(invitationsContract.createInvitation, async ({ context, params, body }) => ({ status: 201, body: await createInvitation(context, { ...body, ...params }) })),
		contractRoute(invitationsContract.revokeInvitation, async ({ context, params }) => ({ status: 200, body: await revokeInvitation(context, params) })),
		contractRoute(invitationsContract.describeInvitation, async ({ context, params }) => ({ status: 200, body: await describeInvitation(context, params) })),
		contractRoute(invitationsContract.acceptInvitation, async ({ context, request, response, params, body }) => {
			const clientAddress = context.services.settings.trustedProxies.clientAddress(request);
			const { userId } = await acceptInvitation(context, { ...body, token: params.token, clientAddress });
			return { status: 200, body: await startDashboardSession(context, request, response, userId) };
		}),
	];
}
