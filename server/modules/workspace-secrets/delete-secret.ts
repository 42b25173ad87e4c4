import type { z } from "zod";
import { ZDeleteSecretInput } from "../../../contract/inputs/workspace-secrets";
import { WorkspaceSecretSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

/** A tool still referencing it gets an error result naming the missing secret from its next call. */
export async function deleteSecret(context: UseCaseContext, input: z.input<typeof ZDeleteSecretInput>): Promise<{ name: string; deleted: true }> {
	const parsed = parseUseCaseInput(ZDeleteSecretInput, input);
	const workspaceId = await authorizeWorkspace(context, "administration:write", parsed.workspaceId);
	const secret = await context.em.findOne(WorkspaceSecretSchema, { workspace: workspaceId, name: parsed.name });
	if (!secret) throw AppError.notFound(`Secret '${parsed.name}'`);
	context.em.remove(secret);
	await context.em.flush();
	return { name: parsed.name, deleted: true };
}
