import { createHash, randomBytes } from "node:crypto";
import type { McpScope } from "../../server/shared/principal";

/**
 * The OAuth flow an MCP client runs, over real HTTP against a running server, as plain requests:
 * register a client, authorize with PKCE S256 and the /mcp resource, sign in and consent on the
 * server's own HTML forms (with their CSRF tokens and cookies), exchange the code. MCP tool tests
 * use it to get real tokens for a user, an organization binding and scopes.
 */

export interface OAuthClient {
	clientId: string;
	clientSecret?: string;
	redirectUri: string;
}

export interface OAuthTokens {
	accessToken: string;
	refreshToken: string;
	expiresIn: number;
	scope: string;
}

export interface ConnectOptions {
	email: string;
	password: string;
	/** An organization id, or "all" (all organizations, opted in). Default: the first one offered. */
	organization?: string;
	/** Scopes approved on the consent screen; mcp:read is always included. Default: ["mcp:read"]. */
	scopes?: McpScope[];
	/** Scopes the client asks for in the authorization request. Default: all three. */
	requestedScopes?: string;
	/** A client registered earlier (or one named by its metadata document URL); default: a new public client. */
	client?: OAuthClient;
	/** The HTML pages the browser was shown (sign-in, consent), appended in order. */
	pages?: string[];
}

/** A cookie jar for one browser-like session (names only; every cookie is sent on every request here). */
export class CookieJar {
	private readonly cookies = new Map<string, string>();

	store(response: Response): void {
		for (const header of response.headers.getSetCookie()) {
			const [pair] = header.split(";");
			const at = pair.indexOf("=");
			const name = pair.slice(0, at).trim();
			const value = pair.slice(at + 1).trim();
			if (value === "" || /max-age=0/i.test(header) || /expires=Thu, 01 Jan 1970/i.test(header)) this.cookies.delete(name);
			else this.cookies.set(name, value);
		}
	}

	header(): string {
		return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
	}
}

export function pkcePair(): { verifier: string; challenge: string } {
	const verifier = randomBytes(32).toString("base64url");
	return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Dynamic client registration (RFC 7591) of a public client (PKCE, no secret) or a confidential one. */
export async function registerClient(baseUrl: string, options: { redirectUri?: string; confidential?: boolean; name?: string } = {}): Promise<OAuthClient> {
	const redirectUri = options.redirectUri ?? "http://127.0.0.1:8976/callback";
	const response = await fetch(`${baseUrl}/oauth/register`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			client_name: options.name ?? "Test MCP client",
			redirect_uris: [redirectUri],
			grant_types: ["authorization_code", "refresh_token"],
			response_types: ["code"],
			token_endpoint_auth_method: options.confidential ? "client_secret_basic" : "none",
			...(options.confidential ? {} : { application_type: "native" }),
		}),
	});
	const body = (await response.json()) as { client_id: string; client_secret?: string; error?: string; error_description?: string };
	if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
	return { clientId: body.client_id, clientSecret: body.client_secret, redirectUri };
}

/** What a page says, without markup: enough to assert on in an error message. */
export function pageText(page: string): string {
	const main = /<main>([\s\S]*)<\/main>/.exec(page)?.[1] ?? page;
	return main
		.replace(/<[^>]+>/g, " ")
		.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))
		.replace(/\s+/g, " ")
		.trim();
}

function hiddenField(page: string, name: string): string {
	const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
	if (!match) throw new Error(`no ${name} field on the page:\n${page.slice(0, 2000)}`);
	return match[1].replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
}

function formAction(page: string, suffix: string): string {
	const match = new RegExp(`action="([^"]*${suffix})"`).exec(page);
	if (!match) throw new Error(`no form posting to *${suffix} on the page:\n${page.slice(0, 2000)}`);
	return match[1];
}

export interface AuthorizationOutcome {
	/** Where the server finally redirected the browser (the client's redirect URI with code or error). */
	redirect: URL;
	verifier: string;
	client: OAuthClient;
}

/** One browser session through authorize -> sign-in -> consent, following redirects by hand until the client's redirect URI. */
export async function authorize(
	baseUrl: string,
	options: ConnectOptions & { deny?: boolean; authorizationParameters?: Record<string, string | undefined>; jar?: CookieJar },
): Promise<AuthorizationOutcome> {
	const client = options.client ?? (await registerClient(baseUrl));
	const { verifier, challenge } = pkcePair();
	const jar = options.jar ?? new CookieJar();
	const parameters = new URLSearchParams();
	const defaults: Record<string, string | undefined> = {
		response_type: "code",
		client_id: client.clientId,
		redirect_uri: client.redirectUri,
		code_challenge: challenge,
		code_challenge_method: "S256",
		scope: options.requestedScopes ?? "mcp:read mcp:write mcp:admin",
		resource: `${baseUrl.replace("127.0.0.1", "localhost")}/mcp`,
		state: randomBytes(8).toString("hex"),
		...options.authorizationParameters,
	};
	for (const [name, value] of Object.entries(defaults)) if (value !== undefined) parameters.set(name, value);

	const redirect = await signInAndConsent(new URL(`/oauth/authorize?${parameters}`, baseUrl), client.redirectUri, { ...options, jar });
	return { redirect, verifier, client };
}

/**
 * What a person does in the browser from an authorization URL (built here, or by a client under test): sign in,
 * consent (or deny) on the server's forms, following redirects by hand; returns the redirect to `redirectUri`.
 */
export async function signInAndConsent(
	authorizationUrl: URL,
	redirectUri: string,
	options: Pick<ConnectOptions, "email" | "password" | "organization" | "scopes" | "pages"> & { deny?: boolean; jar?: CookieJar },
): Promise<URL> {
	const jar = options.jar ?? new CookieJar();
	let url = authorizationUrl;
	let method = "GET";
	let body: URLSearchParams | undefined;
	for (let step = 0; step < 20; step++) {
		const response = await fetch(url, {
			method,
			redirect: "manual",
			headers: { cookie: jar.header(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
			body,
		});
		jar.store(response);
		method = "GET";
		body = undefined;
		if (response.status >= 300 && response.status < 400) {
			const location = new URL(response.headers.get("location") as string, url);
			if (location.href.startsWith(redirectUri)) return location;
			url = location;
			continue;
		}
		const page = await response.text();
		if (response.status !== 200) throw new Error(`${url.pathname} answered ${response.status}: ${pageText(page)}`);
		options.pages?.push(page);
		const csrf = hiddenField(page, "csrf");
		if (page.includes('name="password"')) {
			url = new URL(formAction(page, "/sign-in"), url);
			method = "POST";
			body = new URLSearchParams({ csrf, email: options.email, password: options.password });
		} else if (options.deny) {
			url = new URL(formAction(page, "/deny"), url);
			method = "POST";
			body = new URLSearchParams({ csrf });
		} else {
			url = new URL(formAction(page, "/consent"), url);
			method = "POST";
			const organization = options.organization ?? /name="organization" value="([^"]+)"/.exec(page)?.[1] ?? "";
			body = new URLSearchParams({ csrf, organization });
			for (const scope of new Set<string>(["mcp:read", ...(options.scopes ?? [])])) body.append("scope", scope);
		}
	}
	throw new Error("too many steps in the authorization flow");
}

async function tokenRequest(baseUrl: string, client: OAuthClient, parameters: Record<string, string>): Promise<Response> {
	const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
	const form = new URLSearchParams(parameters);
	if (client.clientSecret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64")}`;
	else form.set("client_id", client.clientId);
	return fetch(`${baseUrl}/oauth/token`, { method: "POST", headers, body: form });
}

function toTokens(body: Record<string, unknown>): OAuthTokens {
	return { accessToken: body.access_token as string, refreshToken: body.refresh_token as string, expiresIn: body.expires_in as number, scope: body.scope as string };
}

/** The code exchange; returns the raw response (tests assert refusals on it). */
export function exchangeCode(baseUrl: string, client: OAuthClient, code: string, verifier: string | undefined, extra: Record<string, string> = {}): Promise<Response> {
	return tokenRequest(baseUrl, client, {
		grant_type: "authorization_code",
		code,
		redirect_uri: client.redirectUri,
		...(verifier === undefined ? {} : { code_verifier: verifier }),
		...extra,
	});
}

/** A refresh (RFC 6749 §6), with `resource` or other parameters when given; returns the raw response. */
export function refresh(baseUrl: string, client: OAuthClient, refreshToken: string, extra: Record<string, string> = {}): Promise<Response> {
	return tokenRequest(baseUrl, client, { grant_type: "refresh_token", refresh_token: refreshToken, ...extra });
}

/** The claims of a JWT, unverified (tests read what the server put in its own tokens). */
export function jwtClaims(token: string): Record<string, unknown> {
	return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()) as Record<string, unknown>;
}

/** Resolves once the clock has passed `epochSeconds` (a token's exp), polling: no fixed sleep. */
export async function untilPast(epochSeconds: number): Promise<void> {
	while (Date.now() <= epochSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The whole flow: tokens for `email` bound as chosen. */
export async function connectMcpClient(baseUrl: string, options: ConnectOptions): Promise<OAuthTokens & { client: OAuthClient }> {
	const { redirect, verifier, client } = await authorize(baseUrl, options);
	const code = redirect.searchParams.get("code");
	if (!code) throw new Error(`no code in ${redirect.href}`);
	const response = await exchangeCode(baseUrl, client, code, verifier);
	const body = (await response.json()) as Record<string, unknown>;
	if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${JSON.stringify(body)}`);
	return { ...toTokens(body), client };
}

export async function readTokens(response: Response): Promise<OAuthTokens> {
	const body = (await response.json()) as Record<string, unknown>;
	if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
	return toTokens(body);
}

/** A JSON-RPC call to /mcp with a bearer token (Streamable HTTP, JSON response). */
export function callMcp(baseUrl: string, accessToken: string | undefined, method: string, params: Record<string, unknown> = {}): Promise<Response> {
	return fetch(`${baseUrl}/mcp`, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
		},
		body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
	});
}
