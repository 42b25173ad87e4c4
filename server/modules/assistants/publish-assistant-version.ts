import type { z } from "zod";
import { ZPublishAssistantVersionInput } from "../../../contract/inputs/assistants";
import { parseInput } from "../../shared/parse-input";
import type { UseCaseContext } from "../platform-services";
import { DEFAULT_ENVIRONMENT_SLUG } from "../tenancy/create-workspace";
import { changeDeployment, type DeploymentChange } from "./change-deployment";

/** Deploys a version to an environment (default production); served on the very next call, on every instance. */
export async function publishAssistantVersion(context: UseCaseContext, rawInput: z.input<typeof ZPublishAssistantVersionInput>): Promise<DeploymentChange> {
	const input = parseInput(ZPublishAssistantVersionInput, rawInput);
	return changeDeployment(context, { ...input, environment: input.environment ?? DEFAULT_ENVIRONMENT_SLUG, action: "publish" });
}
