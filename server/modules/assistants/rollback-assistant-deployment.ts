import type { z } from "zod";
import { ZRollbackAssistantDeploymentInput } from "../../../contract/inputs/assistants";
import { parseInput } from "../../shared/parse-input";
import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { changeDeployment, type DeploymentChange } from "./change-deployment";

/** Re-deploys the version that the latest publish or rollback in that environment replaced. */
export async function rollbackAssistantDeployment(context: UseCaseContext, rawInput: z.input<typeof ZRollbackAssistantDeploymentInput>): Promise<DeploymentChange> {
	const input = parseInput(ZRollbackAssistantDeploymentInput, rawInput);
	return changeDeployment(context, { ...input, environment: input.environment ?? DEFAULT_ENVIRONMENT_SLUG, action: "rollback" });
}
