import type { z } from "zod";
import { ZCreateEnvironmentInput } from "../../../contract/inputs/environments";
import { EnvironmentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type EnvironmentView, presentEnvironment } from "./present-environment";

/** A deployment target next to production (staging, preview, ...); assistants are published to it by slug. */
export async function createEnvironment(
	context: UseCaseContext,
	rawInput: z.input<typeof ZCreateEnvironmentInput>,
): Promise<EnvironmentView> {
	const { em } = context;
	const input = parseInput(ZCreateEnvironmentInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const { name } = input;
	if (await em.findOne(EnvironmentSchema, { workspace: workspaceId, slug: input.slug })) {
		throw AppError.validation([{ field: "slug", issue: `An environment '${input.slug}' already exists in this workspace` }]);
	}
	const environment = em.create(EnvironmentSchema, { id: newId("env"), workspace: workspaceId, slug: input.slug, name, description: input.description ?? null });
	await em.flush();
	return presentEnvironment(environment);
}
