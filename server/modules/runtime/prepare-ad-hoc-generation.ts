import type { TExecuteRequest } from "../../../contract/schemas/runtime";
import type { ChatMessage } from "../../providers/types";
import { newId } from "../../shared/ids";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import type { TracedGenerationInput } from "./run-generation";

/**
 * An ad-hoc generation (POST /runtime/execute and /runtime/stream): the caller names provider,
 * model and messages. The trace id is assigned here, so the answer can name it.
 */
export async function prepareAdHocGeneration(
	context: UseCaseContext,
	input: Omit<TExecuteRequest, "messages"> & { messages: ChatMessage[]; workspaceId?: string },
): Promise<TracedGenerationInput> {
	const workspaceId = await authorizeWorkspace(context, "generations:run", input.workspaceId);
	return {
		origin: { workspaceId, principal: context.principal, traceId: newId("trace") },
		providerName: input.providerName,
		model: input.model,
		messages: input.messages,
		config: input.config,
	};
}
