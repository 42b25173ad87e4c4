import { OrganizationSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

/** Organizations are created by the operator (bootstrap); they hold members and workspaces. */
export async function createOrganization(context: UseCaseContext, input: { name: string }): Promise<{ id: string }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator creates organizations");
	const name = input.name.trim();
	if (!name) throw AppError.validation([{ field: "organization", issue: "Required" }]);
	const id = newId("org");
	context.em.create(OrganizationSchema, { id, name, mcpAdminDisabled: false });
	await context.em.flush();
	return { id };
}
