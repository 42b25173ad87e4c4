import { EnvironmentSchema, OrganizationSchema, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import type { UseCaseContext } from "../platform-services";

export const DEFAULT_ENVIRONMENT_SLUG = "production";

/** A workspace always starts with a `production` environment: the runtime's default target. */
export async function createWorkspace(context: UseCaseContext, input: { organizationId: string; name: string }): Promise<{ id: string }> {
	if (context.principal.kind !== "operator") throw new AppError("FORBIDDEN", "Only the operator creates workspaces");
	const { em } = context;
	const name = input.name.trim();
	if (!name) throw AppError.validation([{ field: "name", issue: "Required" }]);
	if (!(await em.findOne(OrganizationSchema, { id: input.organizationId }))) throw AppError.notFound("Organization");
	const id = newId("ws");
	em.create(WorkspaceSchema, {
		id,
		organization: input.organizationId,
		name,
		storeTraceContent: true,
		rateLimitPerMinute: null,
		monthlySpendQuotaMicroUsd: null,
		storageAllowanceBytes: null,
	});
	em.create(EnvironmentSchema, { id: newId("env"), workspace: id, slug: DEFAULT_ENVIRONMENT_SLUG, name: "Production", description: null });
	await em.flush();
	return { id };
}
