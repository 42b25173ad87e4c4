import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { changeDeployment, type DeploymentChange } from "./change-deployment";

/** Re-deploys the version that the latest publish or rollback in that environment replaced. */
export function rollbackAssistantDeployment(context: UseCaseContext, input: { workspaceId?: string; slug: string; environment?: string }): Promise<DeploymentChange> {
	return changeDeployment(context, { ...input, environment: input.environment ?? DEFAULT_ENVIRONMENT_SLUG, action: "rollback" });
}
