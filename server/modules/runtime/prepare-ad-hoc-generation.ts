import type { TExecuteRequest } from "../../../contract/schemas/runtime";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import type { GenerationInput } from "./run-generation";

/** An ad-hoc generation (POST /runtime/execute and /runtime/stream): the caller names provider, model and messages. */
export async function prepareAdHocGeneration(context: UseCaseContext, input: TExecuteRequest & { workspaceId?: string }): Promise<GenerationInput> {
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	return {
		origin: { workspaceId, principal: context.principal },
		providerName: input.providerName,
		model: input.model,
		messages: input.messages,
		config: input.config,
	};
}
