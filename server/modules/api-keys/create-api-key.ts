import { SCOPES, type Scope } from "../../../contract/common";
import { ApiKeySchema, WorkspaceSchema } from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
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

export function parseScopes(scopes: readonly string[]): Scope[] {
	const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
	if (unknown.length > 0) {
		throw AppError.validation(
			unknown.map((scope) => ({ field: "scopes", issue: `Unknown scope '${scope}'; expected one of ${SCOPES.join(", ")}` })),
		);
	}
	if (scopes.length === 0) throw AppError.validation([{ field: "scopes", issue: "At least one scope is required" }]);
	return [...new Set(scopes)] as Scope[];
}

/** A new key for the workspace; the whole secret is in the result and nowhere else, ever. */
export async function createApiKey(
	context: UseCaseContext,
	input: { workspaceId?: string; name: string; scopes?: readonly string[]; createdByUserId?: string | null },
): Promise<CreatedApiKey> {
	const { em } = context;
	const scopes = parseScopes(input.scopes ?? DEFAULT_API_KEY_SCOPES);
	const name = input.name.trim();
	if (!name) throw AppError.validation([{ field: "name", issue: "Required" }]);
	const workspace = await em.findOne(WorkspaceSchema, { id: await authorizeWorkspace(context, "administration:write", input.workspaceId) });
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
		createdByUser: input.createdByUserId ?? actingUserId(context),
		lastUsedAt: null,
		revokedAt: null,
	});
	await em.flush();
	return { id, key, keyPrefix, name, scopes, workspaceId: workspace.id };
}
