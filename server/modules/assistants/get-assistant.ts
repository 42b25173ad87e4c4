import type { z } from "zod";
import { ZGetAssistantInput } from "../../../contract/inputs/assistants";
import { AssistantVersionSchema, DeploymentSchema, EnvironmentSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";
import { type AssistantView, presentAssistant } from "./present-assistant";

export interface AssistantDetails extends AssistantView {
	latestVersion: number | null;
	/** What each environment serves right now. */
	deployments: { environment: string; version: number; deployedAt: string; deployedByUserId: string | null }[];
}

export async function getAssistant(context: UseCaseContext, rawInput: z.input<typeof ZGetAssistantInput>): Promise<AssistantDetails> {
	const { em } = context;
	const input = parseInput(ZGetAssistantInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(em, workspaceId, input.slug);
	const latest = await em.findOne(AssistantVersionSchema, { assistant: assistant.id }, { orderBy: { version: "desc" }, fields: ["version"] });
	const deployments = await em.find(DeploymentSchema, { assistant: assistant.id });
	const environments = new Map((await em.find(EnvironmentSchema, { workspace: workspaceId }, { fields: ["id", "slug"] })).map((environment) => [environment.id, environment.slug]));
	const versions = new Map(
		(await em.find(AssistantVersionSchema, { id: { $in: deployments.map((deployment) => deployment.version) } }, { fields: ["id", "version"] })).map((version) => [version.id, version.version]),
	);
	return {
		...presentAssistant(assistant),
		latestVersion: latest?.version ?? null,
		deployments: deployments
			.map((deployment) => ({
				environment: environments.get(deployment.environment) ?? deployment.environment,
				version: versions.get(deployment.version) ?? 0,
				deployedAt: deployment.updatedAt.toISOString(),
				deployedByUserId: deployment.deployedByUser,
			}))
			.sort((a, b) => a.environment.localeCompare(b.environment)),
	};
}
