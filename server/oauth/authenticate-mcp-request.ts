import type { IncomingMessage } from "node:http";
import { type JWTPayload, jwtVerify } from "jose";
import { createUseCaseContext, type PlatformServices } from "../modules/platform-services";
import { resolveLiveConnection } from "../modules/oauth/resolve-connection";
import { isMcpScope } from "../modules/oauth/connection-scopes";
import { AppError } from "../shared/app-error";
import { OPERATOR, type McpScope, type UserPrincipal } from "../shared/principal";
import { ACCESS_TOKEN_ALGORITHM } from "../modules/oauth/signing-keys";
import type { SigningKeyRing } from "./signing-key-ring";

export type McpAuthentication =
	| { ok: true; principal: UserPrincipal }
	/** `error` carries the status (401 or 403) and the WWW-Authenticate challenge in its headers. */
	| { ok: false; error: AppError };

/** RFC 9728 §3.1: the metadata of resource {issuer}/mcp lives at {issuer}/.well-known/oauth-protected-resource/mcp. */
export function protectedResourceMetadataUrl(issuer: string): string {
	return `${issuer}/.well-known/oauth-protected-resource/mcp`;
}

/**
 * The authorization helper of the MCP endpoint: from a request to /mcp, the verified
 * `UserPrincipal` (user, client, connection, organization binding, scopes), or the error to
 * answer with: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 §5.1) so MCP
 * clients discover the authorization server, 403 `insufficient_scope` (RFC 6750 §3.1) for a token
 * without MCP scopes. The JWT is checked (signature by a published key, issuer, audience /mcp,
 * expiry), then its connection, on every request: a revoked connection fails at once although
 * its token has not expired. The keys are the unretired ones of this very moment (SigningKeyRing):
 * a key retired on any instance is refused here from the next request.
 */
export class McpRequestAuthenticator {
	constructor(
		private readonly services: PlatformServices,
		private readonly issuer: string,
		private readonly resource: string,
		private readonly signingKeys: SigningKeyRing,
	) {}

	private challenge(status: 401 | 403, parameters: Record<string, string>, message: string): McpAuthentication {
		const attributes = Object.entries({ resource_metadata: protectedResourceMetadataUrl(this.issuer), ...parameters })
			.map(([name, value]) => `${name}="${value.replace(/["\\]/g, "")}"`)
			.join(", ");
		const code = status === 403 ? "FORBIDDEN" : parameters.error ? "INVALID_CREDENTIALS" : "UNAUTHENTICATED";
		return { ok: false, error: new AppError(code, message, { headers: { "WWW-Authenticate": `Bearer ${attributes}` } }) };
	}

	async authenticate(request: IncomingMessage): Promise<McpAuthentication> {
		const header = request.headers.authorization;
		if (!header) return this.challenge(401, {}, "Connect this application to your account: an OAuth access token is required (see the resource metadata)");
		const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/.exec(header);
		if (!match) return this.challenge(401, { error: "invalid_request", error_description: "Authorization must be 'Bearer <token>'" }, "Authorization must be 'Bearer <token>'");

		const keys = await this.signingKeys.current();
		let claims: JWTPayload;
		try {
			({ payload: claims } = await jwtVerify(match[1], async ({ kid }) => {
				const key = keys.verificationKey(kid) ?? (kid === undefined ? undefined : (await this.signingKeys.read()).verificationKey(kid));
				if (!key) throw new Error("not signed by a published key");
				return key;
			}, {
				issuer: this.issuer,
				audience: this.resource,
				algorithms: [ACCESS_TOKEN_ALGORITHM],
				typ: "at+jwt",
				requiredClaims: ["exp", "sub", "client_id"],
			}));
		} catch (error) {
			const expired = (error as { code?: string }).code === "ERR_JWT_EXPIRED";
			const description = expired ? "The access token expired; refresh it" : "The access token is not valid for this resource";
			return this.challenge(401, { error: "invalid_token", error_description: description }, description);
		}

		// RFC 9449 §7.2: a token bound to a key is never good as a bearer token. This server issues
		// none (DPoP is off), so one showing up was not issued as a bearer token here.
		if (claims.cnf !== undefined) {
			const description = "This access token is bound to a key and cannot be used as a bearer token";
			return this.challenge(401, { error: "invalid_token", error_description: description }, description);
		}

		const connectionId = typeof claims.connection_id === "string" ? claims.connection_id : undefined;
		const userId = claims.sub as string;
		const clientId = claims.client_id as string;
		const context = createUseCaseContext(this.services, OPERATOR);
		const connection = connectionId ? await resolveLiveConnection(context, { connectionId, userId, clientId }) : null;
		if (!connection) {
			const description = "This connection was revoked; connect the application again";
			return this.challenge(401, { error: "invalid_token", error_description: description }, description);
		}
		const granted = new Set(connection.scopes);
		const scopes = new Set(
			String(claims.scope ?? "")
				.split(" ")
				.filter((scope): scope is McpScope => isMcpScope(scope) && granted.has(scope)),
		);
		if (scopes.size === 0) {
			return this.challenge(403, { error: "insufficient_scope", scope: "mcp:read" }, "This access token carries no MCP scope; reconnect and approve at least read access");
		}
		return {
			ok: true,
			principal: { kind: "user", userId, clientId, connectionId: connectionId as string, organizationId: connection.organizationId, scopes },
		};
	}
}
