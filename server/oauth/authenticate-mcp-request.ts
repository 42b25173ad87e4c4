import type { IncomingMessage } from "node:http";
import { importJWK, type JWTPayload, jwtVerify } from "jose";
import { createUseCaseContext, type PlatformServices } from "../modules/platform-services";
import { resolveLiveConnection } from "../modules/oauth/resolve-connection";
import { isMcpScope } from "../modules/oauth/connection-scopes";
import { AppError } from "../shared/app-error";
import { OPERATOR, type McpScope, type UserPrincipal } from "../shared/principal";
import { ACCESS_TOKEN_ALGORITHM, type PrivateSigningKey, publicJwk } from "./signing-keys";

type VerificationKey = Awaited<ReturnType<typeof importJWK>>;

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
 * its token has not expired.
 */
export class McpRequestAuthenticator {
	/** Public keys by kid; a kid not seen yet is looked up in the database (a key rotated in by another instance). */
	private readonly keys = new Map<string, VerificationKey>();

	constructor(
		private readonly services: PlatformServices,
		private readonly issuer: string,
		private readonly resource: string,
		initialKeys: PrivateSigningKey[],
	) {
		this.loadKeys(initialKeys).catch(() => {});
	}

	private async loadKeys(keys: PrivateSigningKey[]): Promise<void> {
		for (const key of keys) if (!this.keys.has(key.kid)) this.keys.set(key.kid, await importJWK(publicJwk(key), ACCESS_TOKEN_ALGORITHM));
	}

	private async keyFor(kid: string | undefined): Promise<VerificationKey> {
		if (!kid) throw new Error("token without kid");
		const known = this.keys.get(kid);
		if (known) return known;
		const rows = (await this.services.orm.em
			.getConnection()
			.execute("select encrypted_private_jwk from oauth_signing_keys where id = ? and retired_at is null", [kid])) as { encrypted_private_jwk: string }[];
		if (!rows[0]) throw new Error("unknown signing key");
		await this.loadKeys([JSON.parse(this.services.secrets.decrypt(rows[0].encrypted_private_jwk)) as PrivateSigningKey]);
		return this.keys.get(kid) as VerificationKey;
	}

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

		let claims: JWTPayload;
		try {
			({ payload: claims } = await jwtVerify(match[1], ({ kid }) => this.keyFor(kid), {
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
