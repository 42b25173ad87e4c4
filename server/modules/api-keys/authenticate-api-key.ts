import type { EntityManager } from "@mikro-orm/postgresql";
import type { Scope } from "../../../contract/common";
import { AppError } from "../../shared/app-error";
import type { ApiKeyPrincipal } from "../../shared/principal";
import { API_KEY_PREFIX, hashApiKey } from "./api-key-format";

export type { ApiKeyPrincipal };

const BEARER = /^Bearer[ \t]+(\S*)[ \t]*$/i;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="api"' };

/** Spec, Authentication: missing/malformed/empty header -> UNAUTHENTICATED. */
export function readBearerToken(authorization: string | undefined): string {
	const match = authorization === undefined ? null : BEARER.exec(authorization);
	if (!match || match[1] === "") {
		throw new AppError("UNAUTHENTICATED", "Send the API key as 'Authorization: Bearer csk_live_…'", { headers: CHALLENGE });
	}
	return match[1];
}

/** Unknown, revoked or wrongly prefixed keys all get this one error, so callers learn nothing about which. */
export function invalidApiKeyError(): AppError {
	return new AppError("INVALID_CREDENTIALS", "The API key is invalid or has been revoked", {
		headers: { "WWW-Authenticate": 'Bearer realm="api", error="invalid_token"' },
	});
}

export async function authenticateApiKey(em: EntityManager, token: string): Promise<ApiKeyPrincipal> {
	if (!token.startsWith(API_KEY_PREFIX)) throw invalidApiKeyError();
	const rows: { id: string; workspace_id: string; scopes: string[] }[] = await em
		.getConnection()
		.execute("select id, workspace_id, scopes from api_keys where key_hash = ? and revoked_at is null", [hashApiKey(token)]);
	const row = rows[0];
	if (!row) throw invalidApiKeyError();
	return { kind: "api_key", apiKeyId: row.id, workspaceId: row.workspace_id, scopes: new Set(row.scopes as Scope[]) };
}

export function requireScope(principal: ApiKeyPrincipal, scope: Scope): void {
	if (!principal.scopes.has(scope)) throw new AppError("FORBIDDEN", `This API key lacks the '${scope}' scope`);
}
