import { membersContract } from "../../../../contract/management/members";
import { listMembers } from "../../../modules/members/list-members";
import { removeMember } from "../../../modules/members/remove-member";
import { updateMemberRole } from "../../../modules/members/update-member-role";
import { contractRoute, type RouteDefinition } from "../../pipeline";

/** An organization's members, over the same use cases as the MCP tools and the operator CLI's `member` commands. */
export function membersRoutes(): RouteDefinition[] {
	return [
		contractRoute(membersContract.listMembers, async ({ context, params }) => ({ status: 200, body: { data: await listMembers(context, params) } })),
		contractRoute(membersContract.updateMemberRole, async ({ context, params, body }) => ({ status: 200, body: await updateMemberRole(context, { ...params, ...body }) })),
		contractRoute(membersContract.removeMember, async ({ context, params }) => ({ status: 200, body: await removeMember(context, params) })),
	];
}
