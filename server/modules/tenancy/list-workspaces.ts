import { WorkspaceSchema } from "../../db/entities";
import { authorizeOrganization } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

export interface WorkspaceView {
	id: string;
	organizationId: string;
	name: string;
	createdAt: string;
}

/** The organization's workspaces: every workspace-level tool takes one of these ids. */
export async function listWorkspaces(context: UseCaseContext, input: { organizationId?: string }): Promise<WorkspaceView[]> {
	const { organizationId } = await authorizeOrganization(context, "workspace:read", input.organizationId);
	const workspaces = await context.em.find(WorkspaceSchema, { organization: organizationId }, { orderBy: { name: "asc" } });
	return workspaces.map((workspace) => ({ id: workspace.id, organizationId, name: workspace.name, createdAt: workspace.createdAt.toISOString() }));
}
