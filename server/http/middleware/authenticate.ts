import type { NextFunction, Request, Response } from "express";
import type { RouteMetadata, Scope } from "../../../contract/common";
import { type ApiKeyPrincipal, authenticateApiKey, readBearerToken, requireScope } from "../../modules/api-keys/authenticate-api-key";
import type { HttpDependencies } from "../context";

/**
 * The caller's API key, checked for `scope`. Runtime routes use the key cache; revokeApiKey
 * returns only once every process has dropped the key (server/db/notifications.ts,
 * notifyAndAwaitListeners), so revocation stays immediate.
 */
export async function authenticateRequest(dependencies: HttpDependencies, authorization: string | undefined, scope: Scope): Promise<ApiKeyPrincipal> {
	const token = readBearerToken(authorization);
	const em = () => dependencies.orm.em.fork();
	const cache = scope === "runtime:execute" ? dependencies.apiKeys : undefined;
	const principal = await (cache ? cache.authenticate(em, token) : authenticateApiKey(em(), token));
	requireScope(principal, scope);
	return principal;
}

/**
 * Runs for every contract route before its body is read, so a caller without a valid key learns
 * that first (spec, Authentication table) and the server never parses bodies for strangers.
 */
export function authenticate(dependencies: HttpDependencies) {
	return async (request: Request, _response: Response, next: NextFunction) => {
		const route = (request as Request & { tsRestRoute?: { metadata?: RouteMetadata } }).tsRestRoute;
		const scope = route?.metadata?.scope;
		if (!scope) return next();
		try {
			request.principal = await authenticateRequest(dependencies, request.header("authorization"), scope);
			next();
		} catch (error) {
			next(error);
		}
	};
}
