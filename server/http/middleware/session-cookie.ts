import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The dashboard's one session cookie (also the consent screen's and Connected applications'). On
 * https the `__Host-` prefix makes browsers refuse it unless Secure, host-only and Path=/ (RFC
 * 6265bis §4.1.3.2). HttpOnly: no script reads it. SameSite=Lax: sent on top-level navigations,
 * so a person arriving at the consent screen from an MCP client is already signed in, never on
 * another site's requests (state changes also need the CSRF header).
 */
export function sessionCookieName(publicBaseUrl: string): string {
	return publicBaseUrl.startsWith("https:") ? "__Host-session" : "session";
}

export function readSessionCookie(request: IncomingMessage, publicBaseUrl: string): string | undefined {
	const header = request.headers.cookie;
	if (!header) return undefined;
	const name = sessionCookieName(publicBaseUrl);
	for (const part of header.split(";")) {
		const separator = part.indexOf("=");
		if (separator !== -1 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
	}
	return undefined;
}

function attributes(publicBaseUrl: string): string {
	return `Path=/; HttpOnly; SameSite=Lax${publicBaseUrl.startsWith("https:") ? "; Secure" : ""}`;
}

/** Session cookies in the browser's sense: they end with the browser too; the server's lifetimes end them sooner. */
export function setSessionCookie(response: ServerResponse, publicBaseUrl: string, token: string): void {
	appendSetCookie(response, `${sessionCookieName(publicBaseUrl)}=${token}; ${attributes(publicBaseUrl)}`);
}

export function clearSessionCookie(response: ServerResponse, publicBaseUrl: string): void {
	appendSetCookie(response, `${sessionCookieName(publicBaseUrl)}=; ${attributes(publicBaseUrl)}; Max-Age=0`);
}

function appendSetCookie(response: ServerResponse, cookie: string): void {
	const existing = response.getHeader("set-cookie");
	const cookies = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
	response.setHeader("set-cookie", [...cookies, cookie]);
}

/**
 * A state-changing request from a page of ours: browsers send Origin on every cross-origin request
 * and on same-origin ones that are not GET/HEAD; one that names another site is refused whatever
 * it carries (defence in depth beside the CSRF token). Ours is PUBLIC_BASE_URL's origin, or the
 * host the request was sent to (the browser's own Host header: a server reached by another name,
 * or a test on 127.0.0.1).
 */
export function isSameOrigin(request: IncomingMessage, publicBaseUrl: string): boolean {
	const origin = request.headers.origin;
	if (origin === undefined) return true;
	if (origin === new URL(publicBaseUrl).origin) return true;
	try {
		return new URL(origin).host === request.headers.host;
	} catch {
		return false;
	}
}
