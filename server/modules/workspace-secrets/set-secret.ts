import type { z } from "zod";
import { ZSetSecretInput } from "../../../contract/inputs/workspace-secrets";
import { WorkspaceSchema, WorkspaceSecretSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

export interface SecretView {
	name: string;
	workspaceId: string;
	updatedAt: string;
}

/**
 * Stores (or replaces) a workspace secret, encrypted like provider keys; assistants' tools send it
 * where their headers say `{{secret:NAME}}`. The value is never returned, logged or traced.
 */
export async function setSecret(context: UseCaseContext, input: z.input<typeof ZSetSecretInput>): Promise<SecretView> {
	const { em, services } = context;
	const parsed = parseUseCaseInput(ZSetSecretInput, input);
	if (/[\r\n]/.test(parsed.value)) throw AppError.validation([{ field: "value", issue: "A secret sent in a header cannot contain line breaks" }]);
	const workspaceId = await authorizeWorkspace(context, "administration:write", parsed.workspaceId);
	if (!(await em.findOne(WorkspaceSchema, { id: workspaceId }))) throw AppError.notFound("Workspace");
	const secret =
		(await em.findOne(WorkspaceSecretSchema, { workspace: workspaceId, name: parsed.name })) ??
		em.create(WorkspaceSecretSchema, { id: newId("secret"), workspace: workspaceId, name: parsed.name, encryptedValue: "" });
	secret.encryptedValue = services.secrets.encrypt(parsed.value);
	await em.flush();
	return { name: secret.name, workspaceId, updatedAt: secret.updatedAt.toISOString() };
}
