import { type ListApiKeysInput, ZListApiKeysInput } from "../../../contract/inputs/api-keys";
import { ApiKeySchema } from "../../db/entities";
import { parseUseCaseInput } from "../../shared/use-case-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";

export interface ApiKeyView {
	id: string;
	name: string;
	/** The first characters only: the secret itself was shown once, at creation. */
	keyPrefix: string;
	scopes: string[];
	createdByUserId: string | null;
	lastUsedAt: string | null;
	revokedAt: string | null;
	createdAt: string;
}

export async function listApiKeys(context: UseCaseContext, input: ListApiKeysInput): Promise<ApiKeyView[]> {
	const { workspaceId: named, includeRevoked } = parseUseCaseInput(ZListApiKeysInput, input);
	const workspaceId = await authorizeWorkspace(context, "administration:read", named);
	const keys = await context.em.find(ApiKeySchema, includeRevoked ? { workspace: workspaceId } : { workspace: workspaceId, revokedAt: null }, { orderBy: { createdAt: "desc" } });
	return keys.map((key) => ({
		id: key.id,
		name: key.name,
		keyPrefix: key.keyPrefix,
		scopes: key.scopes,
		createdByUserId: key.createdByUser,
		lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
		revokedAt: key.revokedAt?.toISOString() ?? null,
		createdAt: key.createdAt.toISOString(),
	}));
}
