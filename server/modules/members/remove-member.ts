import { ZRemoveMemberInput } from "../../../contract/inputs/members";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { lockMembership, refuseLastOwner } from "./find-membership";

/** Removes a user from the organization (their account stays); owners are removed only by owners, never the last one. */
export async function removeMember(context: UseCaseContext, input: { organizationId?: string; userId: string }): Promise<{ userId: string; removed: true }> {
	const { organizationId: named, userId } = parseUseCaseInput(ZRemoveMemberInput, input);
	const { organizationId, role: callerRole } = await authorizeOrganization(context, "administration:write", named);
	await context.em.transactional(async (tx) => {
		const { membership, owners } = await lockMembership(tx, organizationId, userId);
		if (membership.role === "owner" && callerRole !== null && callerRole !== "owner") throw new AppError("FORBIDDEN", "Only an owner removes an owner");
		refuseLastOwner(membership, owners, "remove");
		tx.remove(membership);
		await tx.flush();
	});
	return { userId, removed: true };
}
