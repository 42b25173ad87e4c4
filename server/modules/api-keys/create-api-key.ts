import type { Scope } from "../../../contract/common";
import { type CreateApiKeyInput, ZCreateApiKeyInput } from "../../../contract/inputs/api-keys";
import { ApiKeySchema, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { actingUserId, authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { generateApiKey } from "./api-key-format";

export const DEFAULT_API_KEY_SCOPES: Scope[] = ["runtime:execute"];

export interface CreatedApiKey {
	id: string;
	/** The whole secret: returned here once and never again. */
	key: string;
	keyPrefix: string;
	name: string;
	scopes: Scope[];
	workspaceId: string;
}

/**
 * A new key for the workspace; the whole secret is in the result and nowhere else, ever. The key
 * is attributed to the person acting, or to `createdByUserId` (bootstrap: the owner it creates).
 */
export async function createApiKey(context: UseCaseContext, input: CreateApiKeyInput, options: { createdByUserId?: string | null } = {}): Promise<CreatedApiKey> {
	const { em } = context;
	const { name, ...parsed } = parseUseCaseInput(ZCreateApiKeyInput, input);
	const scopes = [...new Set(parsed.scopes ?? DEFAULT_API_KEY_SCOPES)];
	const workspace = await em.findOne(WorkspaceSchema, { id: await authorizeWorkspace(context, "administration:write", parsed.workspaceId) });
	if (!workspace) throw AppError.notFound("Workspace");
	const { key, keyHash, keyPrefix } = generateApiKey();
	const id = newId("key");
	em.create(ApiKeySchema, {
		id,
		workspace: workspace.id,
		name,
		keyHash,
		keyPrefix,
		scopes,
		createdByUser: options.createdByUserId ?? actingUserId(context),
		lastUsedAt: null,
		revokedAt: null,
	});
	await em.flush();
	return { id, key, keyPrefix, name, scopes, workspaceId: workspace.id };
}
