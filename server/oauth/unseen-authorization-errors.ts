import type { KoaContextWithOIDC } from "oidc-provider";

/** The error an authorization request ended with (oidc-provider's `authorization.error` event). */
const AUTHORIZATION_ERROR = Symbol("authorization error");
/** Set when the error was shown on this server's page rather than sent to the client. */
const ERROR_RENDERED = Symbol("authorization error rendered");

type State = Record<symbol, unknown>;

export function recordAuthorizationError(ctx: KoaContextWithOIDC, error: Error): void {
	(ctx.state as State)[AUTHORIZATION_ERROR] = error;
}

export function markErrorRendered(ctx: KoaContextWithOIDC): void {
	(ctx.state as State)[ERROR_RENDERED] = true;
}

/**
 * Open redirectors (RFC 9700 §4.11.2): every client here registered itself (or is named by a
 * document anyone can publish), so a redirect URI proves nothing about who receives the person.
 * An authorization request that fails before anyone has seen this server's pages (a missing PKCE
 * challenge, a bad scope, prompt=none) is answered with our error page, never a redirect,
 * fragment or auto-posted form to the client. Once a person has acted on our page (denied, or
 * approved and the resumed request failed), the client gets the error as OAuth says.
 */
export function holdUnseenAuthorizationErrors(ctx: KoaContextWithOIDC, render: (out: { error: string; error_description?: string }) => string): void {
	const state = ctx.state as State;
	const error = state[AUTHORIZATION_ERROR] as (Error & { error_description?: string }) | undefined;
	if (!error || state[ERROR_RENDERED] || ctx.oidc?.route !== "authorization") return;
	ctx.remove("location");
	ctx.status = 400;
	ctx.type = "html";
	ctx.body = render({ error: error.message, error_description: error.error_description });
}
