import { ZSlug } from "../../../contract/schemas/runtime";
import { EnvironmentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, presentEnvironment } from "./present-environment";

/** A deployment target next to production (staging, preview, ...); assistants are published to it by slug. */
export async function createEnvironment(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; name: string; description?: string | null },
): Promise<EnvironmentView> {
	const { em } = context;
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const name = input.name.trim();
	const issues = [];
	if (!ZSlug.safeParse(input.slug).success) issues.push({ field: "slug", issue: "Lowercase letters, digits and dashes, at most 63 characters" });
	if (!name) issues.push({ field: "name", issue: "Required" });
	if (issues.length > 0) throw AppError.validation(issues);
	if (await em.findOne(EnvironmentSchema, { workspace: workspaceId, slug: input.slug })) {
		throw AppError.validation([{ field: "slug", issue: `An environment '${input.slug}' already exists in this workspace` }]);
	}
	const environment = em.create(EnvironmentSchema, { id: newId("env"), workspace: workspaceId, slug: input.slug, name, description: input.description ?? null });
	await em.flush();
	return presentEnvironment(environment);
}
