import type { z } from "zod";
import { ZListDeploymentsInput } from "../../../contract/inputs/assistants";
import { AssistantVersionSchema, DeploymentEventSchema, EnvironmentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { findAssistant } from "./find-assistant";

export interface DeploymentHistoryEntry {
	environment: string;
	action: "publish" | "rollback";
	version: number;
	previousVersion: number | null;
	actorUserId: string | null;
	at: string;
}

/** Every publish and rollback of an assistant, newest first, optionally in one environment. */
export async function listDeployments(
	context: UseCaseContext,
	rawInput: z.input<typeof ZListDeploymentsInput>,
): Promise<DeploymentHistoryEntry[]> {
	const { em } = context;
	const input = parseInput(ZListDeploymentsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistant = await findAssistant(em, workspaceId, input.slug);
	const environments = await em.find(EnvironmentSchema, { workspace: workspaceId }, { fields: ["id", "slug"] });
	const environment = input.environment === undefined ? undefined : environments.find((candidate) => candidate.slug === input.environment);
	if (input.environment !== undefined && !environment) throw new AppError("DEPLOYMENT_NOT_FOUND", `No environment '${input.environment}' in this workspace`);
	const events = await em.find(DeploymentEventSchema, environment ? { assistant: assistant.id, environment: environment.id } : { assistant: assistant.id }, {
		orderBy: { createdAt: "desc", id: "desc" },
		limit: input.limit ?? 100,
	});
	const versionIds = events.flatMap((event) => (event.previousVersion ? [event.version, event.previousVersion] : [event.version]));
	const versions = new Map((await em.find(AssistantVersionSchema, { id: { $in: versionIds } }, { fields: ["id", "version"] })).map((version) => [version.id, version.version]));
	const slugs = new Map(environments.map((candidate) => [candidate.id, candidate.slug]));
	return events.map((event) => ({
		environment: slugs.get(event.environment) ?? event.environment,
		action: event.action,
		version: versions.get(event.version) ?? 0,
		previousVersion: event.previousVersion ? (versions.get(event.previousVersion) ?? null) : null,
		actorUserId: event.actorUser,
		at: event.createdAt.toISOString(),
	}));
}
