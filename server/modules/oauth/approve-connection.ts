import { OAuthConnectionSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { type McpScope } from "../../shared/principal";
import type { UseCaseContext } from "../platform-services";
import { isMcpScope, scopesForRole } from "./connection-scopes";
import { listUserOrganizations } from "./list-user-organizations";

export interface ConsentChoice {
	userId: string;
	/** One organization, or "all" for the explicit all-organizations opt-in. */
	organization: string;
	scopes: string[];
}

/**
 * Checks what a signed-in user chose on the consent screen: an organization they belong to (or
 * all of theirs, opted in) and scopes their role there can use (for all organizations: their
 * highest role). Returns what the grant will hold; the message of a refusal is shown on the page.
 */
export async function checkConsentChoice(context: UseCaseContext, choice: ConsentChoice): Promise<{ organizationId: string | null; scopes: McpScope[] }> {
	const organizations = await listUserOrganizations(context, { userId: choice.userId });
	if (organizations.length === 0) throw new AppError("FORBIDDEN", "Your account is not a member of any organization, so there is nothing to connect to");
	const unknown = choice.scopes.filter((scope) => !isMcpScope(scope));
	if (unknown.length > 0) throw new AppError("INVALID_REQUEST", `Unknown scope: ${unknown.join(", ")}`);
	const scopes = [...new Set(choice.scopes as McpScope[])];
	if (!scopes.includes("mcp:read")) throw new AppError("INVALID_REQUEST", "Read access (mcp:read) is needed for any connection");
	const all = choice.organization === "all";
	const chosen = all ? organizations : organizations.filter((organization) => organization.id === choice.organization);
	if (chosen.length === 0) throw new AppError("INVALID_REQUEST", "Choose one of your organizations");
	const usable = new Set(chosen.flatMap((organization) => scopesForRole(organization.role)));
	const refused = scopes.filter((scope) => !usable.has(scope));
	if (refused.length > 0) {
		const where = all ? "any of your organizations" : `${chosen[0].name} (you are ${chosen[0].role})`;
		throw new AppError("FORBIDDEN", `Your role in ${where} cannot use ${refused.join(" and ")}`);
	}
	return { organizationId: all ? null : chosen[0].id, scopes };
}

/** Records an approved grant as a connection: what "Connected applications" lists and revokes. */
export async function recordConnection(
	context: UseCaseContext,
	input: { userId: string; organizationId: string | null; clientId: string; clientName: string | null; scopes: McpScope[]; grantId: string },
): Promise<{ connectionId: string }> {
	const connectionId = newId("conn");
	context.em.create(OAuthConnectionSchema, {
		id: connectionId,
		user: input.userId,
		organization: input.organizationId,
		clientId: input.clientId,
		clientName: input.clientName,
		scopes: input.scopes,
		grantId: input.grantId,
		lastUsedAt: null,
		revokedAt: null,
	});
	await context.em.flush();
	return { connectionId };
}
