import { ZSetOrganizationMcpAdministrationInput } from "../../../contract/inputs/organizations";
import { OrganizationSchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import type { UseCaseContext } from "../platform-services";
import { authorizeOrganization } from "../access/authorize";

/**
 * The organization setting "disable administration over MCP" (spec, MCP rule 5): when disabled,
 * every mcp:admin tool is refused for the organization whatever the caller's role
 * (access/authorize.ts). Owners and the operator may change it.
 */
export async function setOrganizationMcpAdministration(
	context: UseCaseContext,
	input: { organizationId: string; enabled: boolean },
): Promise<{ organizationId: string; mcpAdministration: "enabled" | "disabled" }> {
	const { organizationId: named, enabled } = parseUseCaseInput(ZSetOrganizationMcpAdministrationInput, input);
	const { organizationId } = await authorizeOrganization(context, "organization:settings", named);
	await context.em.nativeUpdate(OrganizationSchema, { id: organizationId }, { mcpAdminDisabled: !enabled });
	return { organizationId, mcpAdministration: enabled ? "enabled" : "disabled" };
}
