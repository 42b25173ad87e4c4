import { ZListMembersInput } from "../../../contract/inputs/members";
import { type MemberRole, MembershipSchema, UserSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

export interface MemberView {
	userId: string;
	email: string;
	name: string | null;
	role: MemberRole;
	joinedAt: string;
}

export async function listMembers(context: UseCaseContext, input: { organizationId?: string }): Promise<MemberView[]> {
	const { organizationId } = await authorizeOrganization(context, "administration:read", parseUseCaseInput(ZListMembersInput, input).organizationId);
	const memberships = await context.em.find(MembershipSchema, { organization: organizationId });
	const users = new Map((await context.em.find(UserSchema, { id: { $in: memberships.map((membership) => membership.user) } }, { fields: ["id", "email", "name"] })).map((user) => [user.id, user]));
	return memberships
		.map((membership) => {
			const user = users.get(membership.user);
			return { userId: membership.user, email: user?.email ?? "", name: user?.name ?? null, role: membership.role, joinedAt: membership.createdAt.toISOString() };
		})
		.sort((a, b) => a.email.localeCompare(b.email));
}
