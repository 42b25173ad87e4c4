import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { clientMetadataSizeProblem, isNativeRedirectUri, redirectUriProblem } from "../modules/oauth/client-metadata-policy";
import { ACCESS_TOKEN_ALGORITHM } from "../modules/oauth/signing-keys";
import type { PlatformServices } from "../modules/platform-services";
import { MCP_SCOPES } from "../shared/principal";
import { createClientMetadataFetch } from "./client-metadata-fetch";
import { describeClientMetadataRefusal } from "./client-metadata-refusals";
import { AUTHORIZATION_CODE_TTL_SECONDS, type OAuthOptions } from "./oauth-options";
import { renderErrorPage } from "./pages/error-page";
import { claimRefreshTokenRotation, createPostgresAdapterFactory, revokeGrant } from "./postgres-adapter";
import { applyProviderPageHeaders, setProviderPageHeaders } from "./provider-page-headers";
import { SigningKeyRing, type SigningKeySet } from "./signing-key-ring";
import { holdUnseenAuthorizationErrors, markErrorRendered, recordAuthorizationError } from "./unseen-authorization-errors";

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
	/** The provider built from the current signing keys (as of the last `current()`). */
	readonly provider: Provider;
	/** The provider for this request: rebuilt first when the signing keys changed since the last one. */
	current(): Promise<Provider>;
	issuer: string;
	resource: string;
	signingKeys: SigningKeyRing;
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
 *
 * oidc-provider takes its signing keys once, when built: the provider is built again, on the
 * next request, whenever the key ring says the keys changed (a rotation or retirement by the
 * operator, announced to every instance). Nothing else lives in a provider instance (state is in
 * PostgreSQL, cookies are signed with keys derived from SECRET_KEY), so the swap is invisible.
 */
export async function createAuthorizationServer(services: PlatformServices, options: OAuthOptions): Promise<AuthorizationServer> {
	const issuer = services.settings.publicBaseUrl;
	const resource = mcpResourceOf(issuer);
	const signingKeys = new SigningKeyRing(services);
	const metadataFetch = createClientMetadataFetch({ allowLoopback: options.clientMetadataAllowLoopback, certificateAuthorities: options.clientMetadataCertificateAuthorities });
	const build = (keys: SigningKeySet) => buildProvider(services, options, { issuer, resource, keys, fetch: metadataFetch.fetch });

	const initialKeys = await signingKeys.current();
	let built = { fingerprint: initialKeys.fingerprint, provider: build(initialKeys) };

	return {
		get provider() {
			return built.provider;
		},
		async current() {
			const keys = await signingKeys.current();
			// Built synchronously: requests that see the same new keys find it built by the first of them.
			if (keys.fingerprint !== built.fingerprint) {
				built = { fingerprint: keys.fingerprint, provider: build(keys) };
				services.logger.info("authorization server keys changed", { signingKey: keys.signingKey.kid, published: keys.keys.map((key) => key.kid) });
			}
			return built.provider;
		},
		issuer,
		resource,
		signingKeys,
		close: () => metadataFetch.close(),
	};
}

function buildProvider(
	services: PlatformServices,
	options: OAuthOptions,
	{ issuer, resource, keys, fetch }: { issuer: string; resource: string; keys: SigningKeySet; fetch: unknown },
): Provider {
	const { orm } = services;
	const configuration: Configuration = {
		adapter: createPostgresAdapterFactory({ orm, refreshReuseGraceSeconds: options.refreshReuseGraceSeconds }),
		// Newest first: it signs; the older unretired ones stay published until retired.
		jwks: { keys: structuredClone(keys.keys) },
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
		// Every client, registered here, described by a metadata document, or stored before these rules,
		// is held to the same redirect URI and size rules (client-metadata-policy.ts); a stored client that
		// breaks them is no longer found.
		extraClientMetadata: {
			properties: ["redirect_uris", "application_type"],
			validator: (ctx, key, value, metadata) => {
				const fields = metadata as unknown as Record<string, unknown>;
				if (key === "redirect_uris") {
					const size = clientMetadataSizeProblem(fields);
					if (size) throw new errors.InvalidClientMetadata(`${size.field} ${size.problem}`);
					for (const uri of Array.isArray(value) ? value : []) {
						const problem = redirectUriProblem(uri);
						if (problem) throw new errors.InvalidClientMetadata(`redirect_uris: ${String(uri).slice(0, 200)} ${problem}`);
					}
				}
				// RFC 8252: a registration that returns only to loopback or to its own scheme, and does not
				// say what it is, is a native application (its own scheme allowed, any loopback port, §7.3).
				const registered = ctx?.oidc?.route === "registration" ? (ctx.oidc.body as Record<string, unknown> | undefined) : undefined;
				if (key === "application_type" && registered && registered.application_type === undefined) {
					const uris = Array.isArray(fields.redirect_uris) ? (fields.redirect_uris as unknown[]) : [];
					if (uris.length > 0 && uris.every((uri) => typeof uri === "string" && isNativeRedirectUri(uri))) fields.application_type = "native";
				}
			},
		},
		features: {
			devInteractions: { enabled: false },
			// No registration access tokens: registrations cannot be read or changed afterwards (no
			// registration management), so a token per client would only be stored, never used.
			registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
			revocation: { enabled: true },
			introspection: { enabled: false },
			userinfo: { enabled: false },
			rpInitiatedLogout: { enabled: false },
			// DPoP off: MCP clients (the official SDK included) send bearer tokens, and /mcp would have to
			// check proofs (replay across instances, htu behind proxies) for tokens nobody asks for.
			// Rotation with reuse detection protects public clients' refresh tokens (RFC 9700 §4.14.2).
			dPoP: { enabled: false },
			// No MCP client pushes authorization requests, and each push is a stored record an
			// unauthenticated public client could create at will.
			pushedAuthorizationRequests: { enabled: false },
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
						jwt: { sign: { alg: ACCESS_TOKEN_ALGORITHM, kid: keys.signingKey.kid } },
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
		// A connection outlives the browser session it was approved in: by default oidc-provider binds
		// codes and refresh tokens to the session's one grant per client, so approving the same client
		// again from that browser (re-adding a connector, two installations sharing a client id) or the
		// session's end made the first connection's refresh token unknown.
		expiresWithSession: async () => false,
		issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
		// One refresh token has one successor: the rotation is claimed atomically in PostgreSQL, so of
		// concurrent presenters exactly one rotates; the others get an access token only within the
		// grace window, or, with strict reuse detection, are reuse and end the grant.
		rotateRefreshToken: async (ctx) => {
			const presented = ctx.oidc.entities.RefreshToken;
			if (!presented) return true;
			// oidc-provider checks `resource` only after rotating: refused then, the request would have
			// spent the token while its successor never reached the client.
			const requested = ctx.oidc.params?.resource;
			if (requested !== undefined && requested !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
			if (await claimRefreshTokenRotation(orm, presented.jti)) return true;
			if (options.refreshReuseGraceSeconds === 0) {
				if (presented.grantId) await revokeGrant(orm, presented.grantId);
				throw new errors.InvalidGrant();
			}
			(ctx.state as Record<symbol, boolean>)[GRACE_REFRESH] = true;
			return false;
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
			// Extended with every refresh (postgres-adapter.ts): a connection in use never expires.
			Grant: options.refreshTokenTtlSeconds,
			Interaction: 3600,
			Session: 24 * 3600,
		},
		interactions: { policy: signInAtEveryAuthorization(), url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
		// Browser-based MCP clients (the MCP Inspector) call registration and token endpoints cross-origin.
		clientBasedCORS: () => true,
		fetch: fetch as never,
		renderError: async (ctx, out, error) => {
			markErrorRendered(ctx);
			ctx.type = "html";
			const refusal = describeClientMetadataRefusal(ctx.oidc?.params?.client_id, error);
			ctx.body = renderErrorPage({ title: "This sign-in request cannot continue", message: refusal?.message ?? describeOAuthError(out.error, out.error_description) });
		},
	};

	const provider = new Provider(issuer, configuration);
	// The issuer may be https behind a TLS-terminating proxy while the socket is http: the HTTP
	// layer sets X-Forwarded-Proto (and Host) from PUBLIC_BASE_URL before handing a request over.
	provider.proxy = true;
	provider.use(async (koaContext, next) => {
		const ctx = koaContext as KoaContextWithOIDC;
		setProviderPageHeaders(ctx);
		await next();
		// Within the refresh grace window the previous token yields an access token only.
		if ((ctx.state as Record<symbol, boolean>)[GRACE_REFRESH] && ctx.body && typeof ctx.body === "object") {
			delete (ctx.body as Record<string, unknown>).refresh_token;
		}
		holdUnseenAuthorizationErrors(ctx, (out) => renderErrorPage({ title: "This sign-in request cannot continue", message: describeOAuthError(out.error, out.error_description) }));
		applyProviderPageHeaders(ctx);
	});
	provider.on("server_error", (_ctx: KoaContextWithOIDC, error: Error) => services.logger.error("authorization server error", { error }));
	// The page tells the person what was wrong with the document; the log tells the operator exactly why (address, TLS, status).
	const logClientMetadataRefusal = (ctx: KoaContextWithOIDC, error: Error) => {
		const clientId = ctx.oidc?.params?.client_id;
		const refusal = describeClientMetadataRefusal(clientId, error);
		if (refusal) services.logger.info("client metadata document refused", { clientId, reason: refusal.reason });
	};
	provider.on("authorization.error", recordAuthorizationError);
	provider.on("authorization.error", logClientMetadataRefusal);
	provider.on("grant.error", logClientMetadataRefusal);
	return provider;
}

/** oidc-provider's error codes in plain words, for people who land on an error page. */
export function describeOAuthError(code: string, description: string | undefined): string {
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
		case "login_required":
		case "consent_required":
		case "interaction_required":
			return "The application asked to connect without showing you this server's sign-in and consent pages. Every connection is approved here by you: go back to the application and connect again. Nothing was shared.";
		default:
			return `The application's request could not be completed (${code}${description ? `: ${description}` : ""}). Nothing was shared. Go back to the application and try connecting again.`;
	}
}

/**
 * Who approves is decided by this server's session (the dashboard's, shared by the consent
 * screen), never by oidc-provider's own memory of a past sign-in: every authorization passes the
 * login step, which a live session completes at once (interaction-routes.ts) and which otherwise
 * asks the person to sign in. Signing out of the dashboard therefore also ends "signed in" for the
 * next application a person connects on a shared computer.
 */
function signInAtEveryAuthorization() {
	const policy = interactionPolicy.base();
	policy.get("login")?.checks.add(
		new interactionPolicy.Check("session_of_this_server", "Sign-in is confirmed by this server's session at every authorization", (ctx) =>
			ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
		),
	);
	return policy;
}
