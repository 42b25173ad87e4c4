import type { z } from "zod";
import { ZListEnvironmentsInput } from "../../../contract/inputs/environments";
import { EnvironmentSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, presentEnvironment } from "./present-environment";

export async function listEnvironments(context: UseCaseContext, rawInput: z.input<typeof ZListEnvironmentsInput>): Promise<EnvironmentView[]> {
	const input = parseInput(ZListEnvironmentsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const environments = await context.em.find(EnvironmentSchema, { workspace: workspaceId }, { orderBy: { slug: "asc" } });
	return environments.map(presentEnvironment);
}
