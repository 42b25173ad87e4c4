import { OrganizationSchema, UserSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import type { UseCaseContext } from "../platform-services";

export interface CallerDescription {
	user: { id: string; email: string; name: string | null };
	clientId: string;
	connectionId: string;
	/** The organization the connection is bound to; null for an all-organizations connection. */
	organization: { id: string; name: string } | null;
	allOrganizations: boolean;
	scopes: string[];
}

/** Who an OAuth connection acts as, where, and with which scopes (MCP whoami). */
export async function describeCaller(context: UseCaseContext): Promise<CallerDescription> {
	const { principal } = context;
	if (principal.kind !== "user") throw new AppError("INVALID_REQUEST", "Only a user connected through OAuth has a connection to describe");
	const user = await context.em.findOne(UserSchema, { id: principal.userId }, { fields: ["id", "email", "name"] });
	if (!user) throw new AppError("INVALID_CREDENTIALS", "The user of this connection no longer exists");
	const organization =
		principal.organizationId === null ? null : await context.em.findOne(OrganizationSchema, { id: principal.organizationId }, { fields: ["id", "name"] });
	return {
		user: { id: user.id, email: user.email, name: user.name },
		clientId: principal.clientId,
		connectionId: principal.connectionId,
		organization: organization ? { id: organization.id, name: organization.name } : null,
		allOrganizations: principal.organizationId === null,
		scopes: [...principal.scopes].sort(),
	};
}
