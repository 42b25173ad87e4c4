import type { EntityManager } from "@mikro-orm/postgresql";
import { type Membership, MembershipSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";

/**
 * The membership a change applies to, locked together with the organization's other owners' rows,
 * so two concurrent demotions or removals cannot both pass the last-owner check.
 */
export async function lockMembership(tx: EntityManager, organizationId: string, userId: string): Promise<{ membership: Membership; owners: number }> {
	await tx.getConnection().execute("select id from organizations where id = ? for update", [organizationId], "all", tx.getTransactionContext());
	const membership = await tx.findOne(MembershipSchema, { organization: organizationId, user: userId });
	if (!membership) throw AppError.notFound("Member");
	const owners = await tx.count(MembershipSchema, { organization: organizationId, role: "owner" });
	return { membership, owners };
}

export function refuseLastOwner(membership: Membership, owners: number, change: string): void {
	if (membership.role === "owner" && owners <= 1) {
		throw new AppError("INVALID_REQUEST", `Cannot ${change} the organization's last owner; make another member owner first`);
	}
}
