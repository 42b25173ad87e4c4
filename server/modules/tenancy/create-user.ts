import type { EntityManager } from "@mikro-orm/postgresql";
import { EMAIL_PATTERN } from "../../../contract/inputs/fields";
import { MEMBER_ROLES, type MemberRole, OrganizationSchema, UserSchema } from "../../db/entities";
import { insertMembership } from "../members/add-member";
import { AppError, type FieldIssue } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

export const MIN_PASSWORD_LENGTH = 10;
const MAX_EMAIL_LENGTH = 320;

export function checkCredentials(email: string, password: string): FieldIssue[] {
	const issues: FieldIssue[] = [];
	// The length first: the pattern is quadratic at worst.
	if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) issues.push({ field: "email", issue: "Not an email address" });
	issues.push(...checkNewPassword(password));
	return issues;
}

/** What a new password must be, wherever it is set (the operator's user create, an accepted invitation). */
export function checkNewPassword(password: string): FieldIssue[] {
	return password.length < MIN_PASSWORD_LENGTH ? [{ field: "password", issue: `At least ${MIN_PASSWORD_LENGTH} characters` }] : [];
}

/**
 * The one way a users row is written: an operator's user create, or a person accepting an
 * invitation. The email is stored lower-cased (unique); the password arrives already hashed.
 */
export function insertUser(em: EntityManager, input: { email: string; passwordHash: string; name: string | null }): string {
	const userId = newId("usr");
	em.create(UserSchema, { id: userId, email: input.email.trim().toLowerCase(), passwordHash: input.passwordHash, name: input.name });
	return userId;
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
	const userId = insertUser(em, { email, passwordHash: await context.services.passwords.hash(input.password), name: input.name ?? null });
	const membershipId = insertMembership(em, { organizationId: input.organizationId, userId, role: input.role as MemberRole });
	await em.flush();
	return { userId, membershipId, role: input.role as MemberRole };
}
