import { ZUpdateMemberRoleInput } from "../../../contract/inputs/members";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { lockMembership, refuseLastOwner } from "./find-membership";
import type { MemberView } from "./list-members";

/**
 * Changes a member's role. Only owners grant or take away ownership (an admin could otherwise make
 * themselves owner), and the last owner cannot be demoted: an organization always has one.
 */
export async function updateMemberRole(
	context: UseCaseContext,
	input: { organizationId?: string; userId: string; role: string },
): Promise<Pick<MemberView, "userId" | "role">> {
	const { organizationId: named, userId, role } = parseUseCaseInput(ZUpdateMemberRoleInput, input);
	const { organizationId, role: callerRole } = await authorizeOrganization(context, "administration:write", named);
	return context.em.transactional(async (tx) => {
		const { membership, owners } = await lockMembership(tx, organizationId, userId);
		if ((role === "owner" || membership.role === "owner") && callerRole !== null && callerRole !== "owner") {
			throw new AppError("FORBIDDEN", "Only an owner grants or takes away the owner role");
		}
		if (role !== "owner") refuseLastOwner(membership, owners, "demote");
		membership.role = role;
		await tx.flush();
		return { userId: membership.user, role };
	});
}
