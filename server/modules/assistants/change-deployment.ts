import { AssistantVersionSchema, DeploymentEventSchema, DeploymentSchema, EnvironmentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { DEPLOYMENT_CHANNEL } from "./deployment-cache";
import { findAssistant } from "./find-assistant";

export interface DeploymentChange {
	assistantId: string;
	environment: string;
	version: number;
	previousVersion: number | null;
}

/**
 * Points the environment's deployment at a version (publish: the one named; rollback: the one
 * the latest change replaced), records the event, and returns only once every server process has
 * dropped its cached resolution: the very next call anywhere serves the new version.
 */
export async function changeDeployment(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; environment: string; action: "publish" | "rollback"; version?: number },
): Promise<DeploymentChange> {
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	const actor = actingUserId(context);
	const result = await context.em.transactional(async (tx) => {
		const assistant = await findAssistant(tx, workspaceId, input.slug);
		const environment = await tx.findOne(EnvironmentSchema, { workspace: workspaceId, slug: input.environment });
		if (!environment) throw new AppError("DEPLOYMENT_NOT_FOUND", `No environment '${input.environment}' in this workspace`);
		const deployment = await tx.findOne(DeploymentSchema, { assistant: assistant.id, environment: environment.id });
		let target: { id: string; version: number } | null;
		if (input.action === "publish") {
			target = await tx.findOne(AssistantVersionSchema, { assistant: assistant.id, version: input.version ?? -1 }, { fields: ["id", "version"] });
			if (!target) throw AppError.validation([{ field: "version", issue: `Assistant '${input.slug}' has no version ${input.version}` }]);
		} else {
			if (!deployment) throw new AppError("DEPLOYMENT_NOT_FOUND", `Assistant '${input.slug}' is not deployed to '${input.environment}'`);
			const last = await tx.findOne(DeploymentEventSchema, { assistant: assistant.id, environment: environment.id }, { orderBy: { createdAt: "desc", id: "desc" } });
			if (!last?.previousVersion) throw new AppError("INVALID_REQUEST", `Assistant '${input.slug}' has no earlier version deployed to '${input.environment}'`);
			target = await tx.findOneOrFail(AssistantVersionSchema, { id: last.previousVersion }, { fields: ["id", "version"] });
		}
		const previousVersionId = deployment?.version ?? null;
		if (deployment) {
			deployment.version = target.id;
			deployment.deployedByUser = actor;
		} else {
			tx.create(DeploymentSchema, { id: newId("dep"), workspace: workspaceId, assistant: assistant.id, environment: environment.id, version: target.id, deployedByUser: actor });
		}
		tx.create(DeploymentEventSchema, {
			id: newId("depev"),
			workspace: workspaceId,
			assistant: assistant.id,
			environment: environment.id,
			version: target.id,
			previousVersion: previousVersionId,
			action: input.action,
			actorUser: actor,
		});
		await tx.flush();
		// Also sent inside the transaction, so it is delivered at commit even if this process dies before the acknowledged notice below.
		await tx.getConnection().execute("select pg_notify(?, ?)", [DEPLOYMENT_CHANNEL.name, workspaceId], "all", tx.getTransactionContext());
		const previous = previousVersionId ? await tx.findOne(AssistantVersionSchema, { id: previousVersionId }, { fields: ["version"] }) : null;
		return { assistantId: assistant.id, environment: input.environment, version: target.version, previousVersion: previous?.version ?? null };
	});
	await context.services.notifications.publish(DEPLOYMENT_CHANNEL, workspaceId);
	return result;
}
