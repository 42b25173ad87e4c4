import type { z } from "zod";
import { ZUpdateEnvironmentInput } from "../../../contract/inputs/environments";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, findEnvironment, presentEnvironment } from "./present-environment";

/** Name and description; the slug is what callers deploy to and run against, so it never changes. */
export async function updateEnvironment(
	context: UseCaseContext,
	rawInput: z.input<typeof ZUpdateEnvironmentInput>,
): Promise<EnvironmentView> {
	const input = parseInput(ZUpdateEnvironmentInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const environment = await findEnvironment(context.em, workspaceId, input.slug);
	if (input.name !== undefined) environment.name = input.name;
	if (input.description !== undefined) environment.description = input.description;
	await context.em.flush();
	return presentEnvironment(environment);
}
