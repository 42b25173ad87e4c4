import { MEMBER_ROLES, type MemberRole, MembershipSchema, OrganizationSchema, UserSchema } from "../../db/entities";
import { AppError, type FieldIssue } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 10;

export function checkCredentials(email: string, password: string): FieldIssue[] {
	const issues: FieldIssue[] = [];
	if (!EMAIL.test(email)) issues.push({ field: "email", issue: "Not an email address" });
	if (password.length < MIN_PASSWORD_LENGTH) issues.push({ field: "password", issue: `At least ${MIN_PASSWORD_LENGTH} characters` });
	return issues;
}

/** Creates a user and makes them a member of one organization with the given role (the operator's way in). */
export async function createUser(
	context: UseCaseContext,
	input: { email: string; password: string; organizationId: string; role: string; name?: string },
): Promise<{ userId: string; membershipId: string; role: MemberRole }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator creates users");
	const { em } = context;
	const email = input.email.trim().toLowerCase();
	const issues = checkCredentials(email, input.password);
	if (!(MEMBER_ROLES as readonly string[]).includes(input.role)) {
		issues.push({ field: "role", issue: `Expected one of ${MEMBER_ROLES.join(", ")}` });
	}
	if (issues.length > 0) throw AppError.validation(issues);
	if (!(await em.findOne(OrganizationSchema, { id: input.organizationId }))) throw AppError.notFound("Organization");
	if (await em.findOne(UserSchema, { email })) throw new AppError("INVALID_REQUEST", `A user with email ${email} already exists`);
	const userId = newId("usr");
	em.create(UserSchema, { id: userId, email, passwordHash: await context.services.passwords.hash(input.password), name: input.name ?? null });
	const membershipId = newId("mem");
	em.create(MembershipSchema, { id: membershipId, organization: input.organizationId, user: userId, role: input.role as MemberRole });
	await em.flush();
	return { userId, membershipId, role: input.role as MemberRole };
}
