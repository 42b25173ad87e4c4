import { EnvironmentSchema } from "../../db/entities";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, presentEnvironment } from "./present-environment";

export async function listEnvironments(context: UseCaseContext, input: { workspaceId?: string }): Promise<EnvironmentView[]> {
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const environments = await context.em.find(EnvironmentSchema, { workspace: workspaceId }, { orderBy: { slug: "asc" } });
	return environments.map(presentEnvironment);
}
