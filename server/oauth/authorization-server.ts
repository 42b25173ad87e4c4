import Provider, { errors, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import type { PlatformServices } from "../modules/platform-services";
import { MCP_SCOPES } from "../shared/principal";
import { createClientMetadataFetch } from "./client-metadata-fetch";
import { describeClientMetadataRefusal } from "./client-metadata-refusals";
import { AUTHORIZATION_CODE_TTL_SECONDS, type OAuthOptions } from "./oauth-options";
import { renderErrorPage } from "./pages/error-page";
import { createPostgresAdapterFactory, wasRefreshTokenRotated } from "./postgres-adapter";
import { ACCESS_TOKEN_ALGORITHM, loadSigningKeys, type PrivateSigningKey } from "./signing-keys";

/** Where the authorization server's endpoints live (discovery points clients at them). */
export const OAUTH_ROUTES = {
	authorization: "/oauth/authorize",
	token: "/oauth/token",
	registration: "/oauth/register",
	revocation: "/oauth/revoke",
	jwks: "/.well-known/jwks.json",
	end_session: "/oauth/end-session",
} as const;

/** The protected resource: access tokens carry it as their audience (RFC 8707). */
export function mcpResourceOf(issuer: string): string {
	return `${issuer}/mcp`;
}

export interface AuthorizationServer {
	provider: Provider;
	issuer: string;
	resource: string;
	signingKeys: PrivateSigningKey[];
	close(): Promise<void>;
}

/** Marks a refresh within the grace window: the response then carries an access token only. */
const GRACE_REFRESH = Symbol("grace refresh");

/** The metadata document URLs one request has already tried to fetch. */
const FETCHED_DOCUMENTS = Symbol("client metadata documents fetched");

/**
 * oidc-provider configured as the MCP control plane's authorization server: authorization code
 * with PKCE S256 only, exact redirect URIs, dynamic registration (public and confidential
 * clients) and Client ID Metadata Documents, resource indicators binding JWT access tokens to
 * /mcp, refresh-token rotation with reuse detection and a grace window, `iss` in authorization
 * responses (RFC 9207, on by default), and every piece of state in PostgreSQL.
 */
export async function createAuthorizationServer(services: PlatformServices, options: OAuthOptions): Promise<AuthorizationServer> {
	const issuer = services.settings.publicBaseUrl;
	const resource = mcpResourceOf(issuer);
	const { orm } = services;
	const signingKeys = await loadSigningKeys(orm, services.secrets);
	const metadataFetch = createClientMetadataFetch({ allowLoopback: options.clientMetadataAllowLoopback, certificateAuthorities: options.clientMetadataCertificateAuthorities });

	const configuration: Configuration = {
		adapter: createPostgresAdapterFactory({ orm, refreshReuseGraceSeconds: options.refreshReuseGraceSeconds }),
		jwks: { keys: signingKeys },
		routes: OAUTH_ROUTES,
		// The same keys on every instance: cookies signed by one are read by the others.
		cookies: { keys: [services.secrets.deriveKey("oauth-cookies").toString("base64url")] },
		findAccount: async (_ctx, sub) => {
			const rows = (await orm.em.getConnection().execute("select id from users where id = ?", [sub])) as { id: string }[];
			if (rows.length === 0) return undefined;
			return { accountId: sub, claims: () => ({ sub }) };
		},
		claims: { openid: ["sub"] },
		// Listed here too (not only as /mcp's resource scopes): registration checks a client's `scope`
		// metadata against this list, and MCP clients register with the scopes they read in discovery.
		scopes: ["openid", "offline_access", ...MCP_SCOPES],
		responseTypes: ["code"],
		pkce: { required: () => true },
		clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", id_token_signed_response_alg: ACCESS_TOKEN_ALGORITHM },
		allowOmittingSingleRegisteredRedirectUri: false,
		features: {
			devInteractions: { enabled: false },
			registration: { enabled: true, initialAccessToken: false },
			revocation: { enabled: true },
			introspection: { enabled: false },
			userinfo: { enabled: false },
			rpInitiatedLogout: { enabled: false },
			clientIdMetadataDocument: {
				enabled: true,
				ack: "draft-02",
				// Cached exactly as long as the document's Cache-Control says, up to a day (no-store: not at all; client-metadata-fetch.ts).
				cacheDuration: { min: 0, max: 24 * 3600 },
				// After a failed fetch, oidc-provider's authorization error handler looks the client up again: a
				// document is fetched at most once per request without resolving, not twice the wait and twice the traffic.
				allowFetch: async (ctx: KoaContextWithOIDC | undefined, clientId: string) => {
					if (!ctx) return true;
					const state = ctx.state as Record<symbol, Set<string> | undefined>;
					const fetched = (state[FETCHED_DOCUMENTS] ??= new Set());
					if (fetched.has(clientId) && !ctx.oidc?.client) return false;
					fetched.add(clientId);
					return true;
				},
			} as never,
			resourceIndicators: {
				enabled: true,
				defaultResource: () => resource,
				useGrantedResource: () => true,
				getResourceServerInfo: (_ctx, indicator) => {
					if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
					return {
						scope: MCP_SCOPES.join(" "),
						audience: resource,
						accessTokenTTL: options.accessTokenTtlSeconds,
						accessTokenFormat: "jwt",
						jwt: { sign: { alg: ACCESS_TOKEN_ALGORITHM } },
					};
				},
			},
		},
		enabledJWA: { idTokenSigningAlgValues: [ACCESS_TOKEN_ALGORITHM] },
		// Consent is asked for every authorization (each approval is its own connection): only the
		// grant approved in this very interaction counts, never one remembered in the session.
		loadExistingGrant: async (ctx) => {
			const grantId = ctx.oidc.result?.consent?.grantId;
			return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
		},
		issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
		rotateRefreshToken: async (ctx) => {
			const presented = ctx.oidc.entities.RefreshToken;
			if (presented && (await wasRefreshTokenRotated(orm, presented.jti))) {
				(ctx.state as Record<symbol, boolean>)[GRACE_REFRESH] = true;
				return false;
			}
			return true;
		},
		extraTokenClaims: async (_ctx, token) => {
			if (!("grantId" in token) || !token.grantId) return undefined;
			const rows = (await orm.em.getConnection().execute("select id from oauth_connections where grant_id = ?", [token.grantId])) as { id: string }[];
			return rows[0] ? { connection_id: rows[0].id } : undefined;
		},
		ttl: {
			AccessToken: options.accessTokenTtlSeconds,
			AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
			RefreshToken: options.refreshTokenTtlSeconds,
			Grant: options.refreshTokenTtlSeconds,
			Interaction: 3600,
			Session: 24 * 3600,
		},
		interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
		// Browser-based MCP clients (the MCP Inspector) call registration and token endpoints cross-origin.
		clientBasedCORS: () => true,
		fetch: metadataFetch.fetch as never,
		renderError: async (ctx, out, error) => {
			ctx.type = "html";
			const refusal = describeClientMetadataRefusal(ctx.oidc?.params?.client_id, error);
			ctx.body = renderErrorPage({ title: "This sign-in request cannot continue", message: refusal?.message ?? describeOAuthError(out.error, out.error_description) });
		},
	};

	const provider = new Provider(issuer, configuration);
	// The issuer may be https behind a TLS-terminating proxy while the socket is http: the HTTP
	// layer sets X-Forwarded-Proto (and Host) from PUBLIC_BASE_URL before handing a request over.
	provider.proxy = true;
	provider.use(async (ctx, next) => {
		await next();
		// Within the refresh grace window the previous token yields an access token only.
		if ((ctx.state as Record<symbol, boolean>)[GRACE_REFRESH] && ctx.body && typeof ctx.body === "object") {
			delete (ctx.body as Record<string, unknown>).refresh_token;
		}
	});
	provider.on("server_error", (_ctx: KoaContextWithOIDC, error: Error) => services.logger.error("authorization server error", { error }));
	// The page tells the person what was wrong with the document; the log tells the operator exactly why (address, TLS, status).
	const logClientMetadataRefusal = (ctx: KoaContextWithOIDC, error: Error) => {
		const clientId = ctx.oidc?.params?.client_id;
		const refusal = describeClientMetadataRefusal(clientId, error);
		if (refusal) services.logger.info("client metadata document refused", { clientId, reason: refusal.reason });
	};
	provider.on("authorization.error", logClientMetadataRefusal);
	provider.on("grant.error", logClientMetadataRefusal);

	return { provider, issuer, resource, signingKeys, close: () => metadataFetch.close() };
}

/** oidc-provider's error codes in plain words, for people who land on an error page. */
function describeOAuthError(code: string, description: string | undefined): string {
	switch (code) {
		case "invalid_client":
			return "The application that sent you here is not registered with this server, or its registration is no longer valid. Go back to it and connect again.";
		case "invalid_redirect_uri":
			return "The application asked to send you back to an address it did not register. Nothing was shared. Tell the application's developer.";
		case "invalid_request":
			return `The application's request was incomplete or malformed${description ? `: ${description}` : ""}. Nothing was shared.`;
		case "session_not_found":
		case "invalid_grant":
			return "This sign-in link has expired or was already used. Go back to the application and connect again.";
		default:
			return `The request could not be completed (${code}). Go back to the application and try connecting again.`;
	}
}
