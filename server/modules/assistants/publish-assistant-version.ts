import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { changeDeployment, type DeploymentChange } from "./change-deployment";

/** Deploys a version to an environment (default production); served on the very next call, on every instance. */
export function publishAssistantVersion(
	context: UseCaseContext,
	input: { workspaceId?: string; slug: string; version: number; environment?: string },
): Promise<DeploymentChange> {
	return changeDeployment(context, { ...input, environment: input.environment ?? DEFAULT_ENVIRONMENT_SLUG, action: "publish" });
}
