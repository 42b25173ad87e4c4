import { AppError } from "../../shared/app-error";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, findEnvironment, presentEnvironment } from "./present-environment";

/** Name and description; the slug is what callers deploy to and run against, so it never changes. */
export async function updateEnvironment(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; name?: string; description?: string | null },
): Promise<EnvironmentView> {
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const environment = await findEnvironment(context.em, workspaceId, input.slug);
	if (input.name !== undefined) {
		const name = input.name.trim();
		if (!name) throw AppError.validation([{ field: "name", issue: "Must not be empty" }]);
		environment.name = name;
	}
	if (input.description !== undefined) environment.description = input.description;
	await context.em.flush();
	return presentEnvironment(environment);
}
