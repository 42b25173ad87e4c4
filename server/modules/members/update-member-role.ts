import { MEMBER_ROLES, type MemberRole } from "../../db/entities";
import { AppError } from "../../shared/app-error";
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
	if (!(MEMBER_ROLES as readonly string[]).includes(input.role)) throw AppError.validation([{ field: "role", issue: `Expected one of ${MEMBER_ROLES.join(", ")}` }]);
	const role = input.role as MemberRole;
	const { organizationId, role: callerRole } = await authorizeOrganization(context, "administration:write", input.organizationId);
	return context.em.transactional(async (tx) => {
		const { membership, owners } = await lockMembership(tx, organizationId, input.userId);
		if ((role === "owner" || membership.role === "owner") && callerRole !== null && callerRole !== "owner") {
			throw new AppError("FORBIDDEN", "Only an owner grants or takes away the owner role");
		}
		if (role !== "owner") refuseLastOwner(membership, owners, "demote");
		membership.role = role;
		await tx.flush();
		return { userId: membership.user, role };
	});
}
