import type { z } from "zod";
import { ZDeleteEnvironmentInput } from "../../../contract/inputs/environments";
import { AssistantSchema, DeploymentEventSchema, DeploymentSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import { DEPLOYMENT_CHANNEL } from "../assistants/deployment-cache";
import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { findEnvironment } from "./present-environment";

/**
 * Production always exists (the runtime's default target), and an environment that still serves an
 * assistant is kept: deleting it would break callers of that assistant there. Deployments of
 * archived assistants (served nowhere) and the deployment history go with it.
 */
export async function deleteEnvironment(context: UseCaseContext, rawInput: z.input<typeof ZDeleteEnvironmentInput>): Promise<{ slug: string; deleted: true }> {
	const input = parseInput(ZDeleteEnvironmentInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:write", input.workspaceId);
	if (input.slug === DEFAULT_ENVIRONMENT_SLUG) throw new AppError("INVALID_REQUEST", "The production environment cannot be deleted: it is the runtime's default target");
	await context.em.transactional(async (tx) => {
		const environment = await findEnvironment(tx, workspaceId, input.slug);
		// Locks the environment so a publish to it cannot slip in between the check and the delete.
		await tx.getConnection().execute("select id from environments where id = ? for update", [environment.id], "all", tx.getTransactionContext());
		const deployed = await tx.find(DeploymentSchema, { environment: environment.id }, { fields: ["assistant"] });
		const served = await tx.find(
			AssistantSchema,
			{ id: { $in: deployed.map((deployment) => deployment.assistant) }, archivedAt: null },
			{ fields: ["slug"], orderBy: { slug: "asc" } },
		);
		if (served.length > 0) {
			throw new AppError(
				"INVALID_REQUEST",
				`Environment '${input.slug}' still serves ${served.map((assistant) => `'${assistant.slug}'`).join(", ")}; archive those assistants first, or keep the environment`,
			);
		}
		await tx.nativeDelete(DeploymentEventSchema, { environment: environment.id });
		await tx.nativeDelete(DeploymentSchema, { environment: environment.id });
		tx.remove(environment);
		await tx.flush();
	});
	await context.services.notifications.publish(DEPLOYMENT_CHANNEL, workspaceId);
	return { slug: input.slug, deleted: true };
}
