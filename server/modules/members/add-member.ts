import type { EntityManager } from "@mikro-orm/postgresql";
import { MEMBER_ROLES, type MemberRole, MembershipSchema, OrganizationSchema, UserSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

/** The operator adds an existing user to another organization (users belong to several). */
export async function addMember(context: UseCaseContext, input: { organizationId: string; email: string; role: string }): Promise<{ userId: string; role: MemberRole }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator adds members");
	if (!(MEMBER_ROLES as readonly string[]).includes(input.role)) throw AppError.validation([{ field: "role", issue: `Expected one of ${MEMBER_ROLES.join(", ")}` }]);
	const { em } = context;
	if (!(await em.findOne(OrganizationSchema, { id: input.organizationId }))) throw AppError.notFound("Organization");
	const user = await em.findOne(UserSchema, { email: input.email.trim().toLowerCase() });
	if (!user) throw AppError.notFound("User");
	if (await em.findOne(MembershipSchema, { organization: input.organizationId, user: user.id })) throw new AppError("INVALID_REQUEST", "That user is already a member");
	insertMembership(em, { organizationId: input.organizationId, userId: user.id, role: input.role as MemberRole });
	await em.flush();
	return { userId: user.id, role: input.role as MemberRole };
}

/** The one way a memberships row is created (the operator's user create and add, an accepted invitation); flushed by the caller. */
export function insertMembership(em: EntityManager, input: { organizationId: string; userId: string; role: MemberRole }): string {
	const id = newId("mem");
	em.create(MembershipSchema, { id, organization: input.organizationId, user: input.userId, role: input.role });
	return id;
}
