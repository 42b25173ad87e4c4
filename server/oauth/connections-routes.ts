import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { listConnections } from "../modules/oauth/list-connections";
import { endPageSession, findPageSession, startPageSession } from "../modules/oauth/page-sessions";
import { revokeConnection } from "../modules/oauth/revoke-connection";
import { signInUser } from "../modules/oauth/sign-in-user";
import { createUseCaseContext, type PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { OPERATOR } from "../shared/principal";
import { CONNECTIONS_PATH, renderConnectionsPage, renderConnectionsSignInPage } from "./pages/connections-page";
import { renderErrorPage } from "./pages/error-page";
import { cookie, readCookie, readFormOrRefuse, redirect, sendPage, sign, signatureMatches } from "./pages/forms";

const SESSION_COOKIE = "connections_session";
const PRE_SESSION_COOKIE = "connections_csrf";
const SESSION_SECONDS = 3600;
const REVOKE_PATH = /^\/oauth\/connections\/([A-Za-z0-9_-]{1,80})\/revoke$/;

/**
 * "Connected applications": a signed-in user lists their connections and revokes them. The
 * session cookie (HttpOnly, SameSite=Lax, this path only) holds a random token whose hash is a
 * row in PostgreSQL (page-sessions.ts, one hour): any instance reads it, and signing out deletes
 * the row, so the cookie is dead everywhere, copies included. Every form carries a CSRF token:
 * bound to the session once signed in, and to a random pre-session cookie on the sign-in form
 * (login CSRF).
 */
export function createConnectionsRoutes(services: PlatformServices) {
	const csrfKey = services.secrets.deriveKey("connections-csrf");
	const secure = () => services.settings.publicBaseUrl.startsWith("https:");
	const context = () => createUseCaseContext(services, OPERATOR);

	async function signedInUser(request: IncomingMessage): Promise<{ userId: string; session: string } | null> {
		const session = readCookie(request, SESSION_COOKIE);
		if (!session || !/^[A-Za-z0-9_-]{20,100}$/.test(session)) return null;
		const found = await findPageSession(context(), { token: session });
		return found ? { userId: found.userId, session } : null;
	}

	async function showSignIn(response: ServerResponse, status: number, extra: { email?: string; error?: string; headers?: Record<string, string> } = {}) {
		const preSession = randomBytes(18).toString("base64url");
		const setCookie = cookie(PRE_SESSION_COOKIE, preSession, { path: CONNECTIONS_PATH, maxAgeSeconds: 3600, secure: secure(), sameSite: "Strict" });
		sendPage(response, status, renderConnectionsSignInPage({ csrf: sign(csrfKey, `pre:${preSession}`), email: extra.email, error: extra.error }), {
			...extra.headers,
			"set-cookie": setCookie,
		});
	}

	async function showConnections(response: ServerResponse, user: { userId: string; session: string }, notice?: string) {
		const email = ((await context().em.getConnection().execute("select email from users where id = ?", [user.userId])) as { email: string }[])[0]?.email;
		if (!email) return showSignIn(response, 200);
		const { data } = await listConnections(context(), { userId: user.userId, signedInUserId: user.userId });
		sendPage(response, 200, renderConnectionsPage({ email, connections: data, csrf: sign(csrfKey, `session:${user.session}`), notice }));
	}

	function refuseForm(response: ServerResponse) {
		sendPage(response, 403, renderErrorPage({ title: "The form has expired", message: "This form was not sent from this page. Open Connected applications again and retry." }));
	}

	/** Answers the request when it is a connected-applications page; false when the path is not one. */
	return async function handle(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
		if (path !== CONNECTIONS_PATH && !path.startsWith(`${CONNECTIONS_PATH}/`)) return false;
		const method = request.method ?? "GET";
		const user = await signedInUser(request);
		if (path === CONNECTIONS_PATH && method === "GET") {
			if (user) await showConnections(response, user, new URL(request.url ?? "/", "http://x").searchParams.get("revoked") ? "The application was disconnected." : undefined);
			else await showSignIn(response, 200);
			return true;
		}
		const revoke = REVOKE_PATH.exec(path);
		if (method !== "POST" || !(revoke || path === `${CONNECTIONS_PATH}/sign-in` || path === `${CONNECTIONS_PATH}/sign-out`)) {
			sendPage(response, 404, renderErrorPage({ title: "Page not found", message: "There is no such page. Open Connected applications to see your applications." }));
			return true;
		}
		const form = await readFormOrRefuse(request, response);
		if (!form) return true;
		if (path === `${CONNECTIONS_PATH}/sign-in`) {
			const preSession = readCookie(request, PRE_SESSION_COOKIE);
			if (!preSession || !signatureMatches(csrfKey, `pre:${preSession}`, form.get("csrf"))) {
				refuseForm(response);
				return true;
			}
			const email = form.get("email") ?? "";
			try {
				const { userId } = await signInUser(context(), { email, password: form.get("password") ?? "", clientAddress: services.settings.trustedProxies.clientAddress(request) });
				const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
				const { token: value } = await startPageSession(context(), { userId, expiresAt: new Date(expires * 1000) });
				redirect(response, CONNECTIONS_PATH, {
					"set-cookie": [
						cookie(SESSION_COOKIE, value, { path: CONNECTIONS_PATH, maxAgeSeconds: SESSION_SECONDS, secure: secure(), sameSite: "Lax" }),
						cookie(PRE_SESSION_COOKIE, "", { path: CONNECTIONS_PATH, maxAgeSeconds: 0, secure: secure(), sameSite: "Strict" }),
					],
				});
			} catch (error) {
				if (!(error instanceof AppError) || error.status >= 500) throw error;
				await showSignIn(response, error.status, { email, error: error.message, headers: error.headers });
			}
			return true;
		}
		if (!user || !signatureMatches(csrfKey, `session:${user.session}`, form.get("csrf"))) {
			refuseForm(response);
			return true;
		}
		if (revoke) {
			try {
				await revokeConnection(createUseCaseContext(services, OPERATOR), { id: revoke[1], signedInUserId: user.userId });
			} catch (error) {
				if (!(error instanceof AppError) || error.status !== 404) throw error;
				sendPage(response, 404, renderErrorPage({ title: "Connection not found", message: "That connection does not exist or is not yours." }));
				return true;
			}
			redirect(response, `${CONNECTIONS_PATH}?revoked=1`);
			return true;
		}
		await endPageSession(context(), { token: user.session });
		redirect(response, CONNECTIONS_PATH, { "set-cookie": cookie(SESSION_COOKIE, "", { path: CONNECTIONS_PATH, maxAgeSeconds: 0, secure: secure(), sameSite: "Lax" }) });
		return true;
	};
}
