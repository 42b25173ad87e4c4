import type { IncomingMessage, ServerResponse } from "node:http";
import { McpRequestAuthenticator, protectedResourceMetadataUrl } from "../oauth/authenticate-mcp-request";
import { type AuthorizationServer, createAuthorizationServer } from "../oauth/authorization-server";
import { createInteractionRoutes } from "../oauth/interaction-routes";
import { DEFAULT_OAUTH_OPTIONS, type OAuthOptions } from "../oauth/oauth-options";
import { renderErrorPage } from "../oauth/pages/error-page";
import { sendPage } from "../oauth/pages/forms";
import { deleteExpiredOAuthRecords } from "../oauth/postgres-adapter";
import { admitClientRegistration, deleteEndedRegistrationWindows } from "../modules/oauth/admit-client-registration";
import { CLIENT_METADATA_MAX_BYTES } from "../modules/oauth/client-metadata-policy";
import { deleteUnusedClients } from "../modules/oauth/delete-unused-clients";
import { deleteExpiredSessions } from "../modules/sessions/end-session";
import { createUseCaseContext, type PlatformServices } from "../modules/platform-services";
import { MCP_SCOPES, OPERATOR } from "../shared/principal";
import { AppError } from "../shared/app-error";
import { handleMcpRequest, type McpServerFactory } from "./mcp-endpoint";
import { exactPath, type RawRoute } from "./raw-route";
import { sendJson } from "./middleware/errors";

/** Paths oidc-provider answers itself (its routes in authorization-server.ts, discovery, JWKS). */
const PROVIDER_PATHS: ReadonlySet<string> = new Set(["/oauth/authorize", "/oauth/token", "/oauth/register", "/oauth/revoke", "/.well-known/openid-configuration", "/.well-known/jwks.json"]);

/** A registration body declared larger than this is refused unread (oidc-provider's own cap is 56 KiB); the metadata itself must fit CLIENT_METADATA_MAX_BYTES. */
const REGISTRATION_BODY_LIMIT = 2 * CLIENT_METADATA_MAX_BYTES;


export interface OAuthEndpoints {
	/** Their rows of the server's route table (router.ts): /mcp, discovery, the authorization server, its pages. */
	routes: RawRoute[];
	/** Builds the authorization server once the public address is known (after listen). */
	start(): Promise<void>;
	close(): Promise<void>;
}

/**
 * The MCP control plane's HTTP surface, outside the contract: discovery (RFC 8414, RFC 9728,
 * JWKS), oidc-provider's endpoints, the sign-in/consent and connected-applications pages, and
 * /mcp itself. API answers (the /mcp challenge) use the spec's error envelope; OAuth endpoints
 * answer in RFC 6749's error format, as OAuth clients expect; pages are HTML.
 */
export function createOAuthEndpoints(services: PlatformServices, options: Partial<OAuthOptions>, createMcpServer: McpServerFactory): OAuthEndpoints {
	const settings = { ...DEFAULT_OAUTH_OPTIONS, ...options };
	let started: Promise<{ server: AuthorizationServer; authenticator: McpRequestAuthenticator; callback: (request: IncomingMessage, response: ServerResponse) => Promise<void> }> | undefined;
	let sweep: NodeJS.Timeout | undefined;
	let interactions: ReturnType<typeof createInteractionRoutes> | undefined;

	const start = () => {
		started ??= (async () => {
			const server = await createAuthorizationServer(services, settings);
			interactions = createInteractionRoutes(services, server);
			const authenticator = new McpRequestAuthenticator(services, server.issuer, server.resource, server.signingKeys);
			// Expired codes, sessions and interactions are never read again, unused clients go (delete-unused-clients.ts); once an hour is plenty.
			sweep = setInterval(() => sweepOAuthState().catch((error) => services.logger.warn("OAuth records not swept", { error })), settings.sweepIntervalSeconds * 1000);
			sweep.unref();
			const callbacks = new WeakMap<object, (request: IncomingMessage, response: ServerResponse) => Promise<void>>();
			const issuerUrl = new URL(server.issuer);
			// Every URL oidc-provider writes (discovery, redirects) comes from PUBLIC_BASE_URL, never
			// from what a client put in Host or X-Forwarded-* headers.
			const callback = async (request: IncomingMessage, response: ServerResponse) => {
				request.headers.host = issuerUrl.host;
				request.headers["x-forwarded-proto"] = issuerUrl.protocol.slice(0, -1);
				delete request.headers["x-forwarded-host"];
				// The provider of the current signing keys (rebuilt after a rotation or retirement).
				const provider = await server.current();
				let providerCallback = callbacks.get(provider);
				if (!providerCallback) {
					providerCallback = provider.callback() as (request: IncomingMessage, response: ServerResponse) => Promise<void>;
					callbacks.set(provider, providerCallback);
				}
				return providerCallback(request, response);
			};
			return { server, authenticator, callback };
		})();
		return started;
	};

	async function sweepOAuthState(): Promise<void> {
		const context = createUseCaseContext(services, OPERATOR);
		await deleteExpiredOAuthRecords(services.orm);
		const { deleted } = await deleteUnusedClients(context, { unusedSeconds: settings.unusedClientRetentionSeconds, idleSeconds: settings.idleClientRetentionSeconds });
		if (deleted.length > 0) services.logger.info("unused OAuth clients removed", { clients: deleted.length });
		await deleteEndedRegistrationWindows(context);
		await deleteExpiredSessions(context);
	}

	/**
	 * Before oidc-provider reads a registration: a declared body over the limit is refused unread,
	 * and each registration counts against its address's hourly limit (every instance together).
	 * The metadata itself is checked by the provider (authorization-server.ts, client-metadata-policy.ts).
	 */
	async function admitRegistration(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
		const declared = Number(request.headers["content-length"] ?? 0);
		// Browser-based clients register cross-origin: they must be able to read a refusal.
		if (declared > REGISTRATION_BODY_LIMIT) {
			response.setHeader("access-control-allow-origin", "*");
			response.setHeader("connection", "close");
			sendJson(response, 413, { error: "invalid_client_metadata", error_description: `The registration is ${declared} bytes; at most ${REGISTRATION_BODY_LIMIT} are accepted` });
			return false;
		}
		try {
			await admitClientRegistration(createUseCaseContext(services, OPERATOR), { clientAddress: services.settings.trustedProxies.clientAddress(request), registrationsPerHour: settings.registrationsPerHour });
			return true;
		} catch (error) {
			if (!(error instanceof AppError) || error.code !== "RATE_LIMITED") throw error;
			for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
			response.setHeader("access-control-allow-origin", "*");
			// RFC 6749's vocabulary has no rate-limit code; temporarily_unavailable with 429 and Retry-After says it.
			sendJson(response, 429, { error: "temporarily_unavailable", error_description: error.message });
			return false;
		}
	}

	function protectedResourceMetadata(server: AuthorizationServer) {
		return {
			resource: server.resource,
			authorization_servers: [server.issuer],
			scopes_supported: [...MCP_SCOPES],
			bearer_methods_supported: ["header"],
			resource_name: "AI Application Platform MCP control plane",
			resource_documentation: `${server.issuer}/.well-known/oauth-authorization-server`,
		};
	}

	const routes: RawRoute[] = [
		{
			name: "mcp",
			matches: exactPath("/mcp"),
			errors: "envelope",
			handle: async ({ request, response }) => {
				const { authenticator } = await start();
				return handleMcpRequest(services, authenticator, createMcpServer, request, response);
			},
		},
		{
			name: "protected resource metadata",
			matches: exactPath(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]),
			errors: "envelope",
			handle: async ({ request, response, path }) => {
				const { server } = await start();
				if (request.method !== "GET" && request.method !== "OPTIONS") throw new AppError("NOT_FOUND", `No route for ${request.method} ${path}`);
				response.setHeader("Access-Control-Allow-Origin", "*");
				sendJson(response, 200, protectedResourceMetadata(server));
			},
		},
		{
			name: "authorization server metadata",
			matches: exactPath("/.well-known/oauth-authorization-server"),
			errors: "envelope",
			handle: async ({ request, response, path }) => {
				const { callback } = await start();
				// RFC 8414 names the document differently from OpenID Connect Discovery; the content is the same.
				request.url = `/.well-known/openid-configuration${(request.url ?? "").slice(path.length)}`;
				return callback(request, response);
			},
		},
		{
			name: "authorization server",
			matches: (path) => PROVIDER_PATHS.has(path) || path.startsWith("/oauth/authorize/"),
			errors: "envelope",
			handle: async ({ request, response, path }) => {
				const { callback } = await start();
				if (path === "/oauth/register" && request.method === "POST" && !(await admitRegistration(request, response))) return;
				return callback(request, response);
			},
		},
		{
			// Connected applications moved into the dashboard (one session for every page).
			name: "connected applications (moved)",
			matches: (path, method) => path === "/oauth/connections" && (method === "GET" || method === "HEAD"),
			errors: "page",
			handle: ({ response }) => redirectTo(response, "/account/connections"),
		},
		{
			name: "sign-in and consent pages",
			matches: (path) => path.startsWith("/oauth/interaction/"),
			errors: "page",
			handle: async ({ request, response, path }) => {
				await start();
				if (interactions && (await interactions(request, response, path))) return;
				sendPage(response, 404, renderErrorPage({ title: "Page not found", message: "There is no such page here." }));
			},
		},
		{
			name: "other authorization pages",
			matches: (path) => path.startsWith("/oauth/"),
			errors: "page",
			handle: ({ response }) => sendPage(response, 404, renderErrorPage({ title: "Page not found", message: "There is no such page here." })),
		},
	];

	return {
		routes,
		start: async () => {
			await start();
		},
		async close() {
			if (sweep) clearInterval(sweep);
			if (started) await (await started.catch(() => undefined))?.server.close();
		},
	};
}

export { protectedResourceMetadataUrl };

function redirectTo(response: ServerResponse, location: string): void {
	response.writeHead(303, { location, "cache-control": "no-store" });
	response.end();
}
