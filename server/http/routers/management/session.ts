import type { IncomingMessage, ServerResponse } from "node:http";
import { sessionContract } from "../../../../contract/management/session";
import { signInUser } from "../../../modules/oauth/sign-in-user";
import { authenticateSession } from "../../../modules/sessions/authenticate-session";
import { describeSession } from "../../../modules/sessions/describe-session";
import { endSession } from "../../../modules/sessions/end-session";
import { startSession } from "../../../modules/sessions/start-session";
import { AppError } from "../../../shared/app-error";
import { clearSessionCookie, readSessionCookie, setSessionCookie } from "../../middleware/session-cookie";
import { contractRoute, type RouteDefinition } from "../../pipeline";
import type { UseCaseContext } from "../../../modules/platform-services";
import type { SessionDescription } from "../../../modules/sessions/describe-session";

/** Sign-in, the signed-in session, sign-out: the dashboard's session, shared with the consent screen. */
export function sessionRoutes(): RouteDefinition[] {
	return [
		contractRoute(sessionContract.getSession, async ({ context, session }) => {
			if (!session) throw new AppError("UNAUTHENTICATED", "Sign in to continue");
			return { status: 200, body: await describeSession(context, session) };
		}),

		contractRoute(sessionContract.signIn, async ({ context, request, response, body }) => {
			const { userId } = await signInUser(context, { email: body.email, password: body.password, clientAddress: context.services.settings.trustedProxies.clientAddress(request) });
			return { status: 200, body: await startDashboardSession(context, request, response, userId) };
		}),

		contractRoute(sessionContract.signOut, async ({ context, response, query, session }) => {
			if (!session) throw new AppError("UNAUTHENTICATED", "Sign in to continue");
			await endSession(context, { sessionId: session.sessionId, everywhere: query.everywhere === "true" });
			clearSessionCookie(response, context.services.settings.publicBaseUrl);
			return { status: 200, body: { signedOut: true as const } };
		}),
	];
}

/**
 * Signs a person in whose identity was just proven (a password at sign-in, an accepted
 * invitation): a new session every time, never the one the browser brought (session fixation),
 * which ends; its cookie; and the session as the dashboard reads it.
 */
export async function startDashboardSession(context: UseCaseContext, request: IncomingMessage, response: ServerResponse, userId: string): Promise<SessionDescription> {
	const { settings } = context.services;
	const previous = readSessionCookie(request, settings.publicBaseUrl);
	const previousSession = previous ? await authenticateSession(context, { token: previous }) : null;
	if (previousSession) await endSession(context, { sessionId: previousSession.sessionId, everywhere: false });
	const userAgent = request.headers["user-agent"];
	const started = await startSession(context, { userId, userAgent, clientAddress: settings.trustedProxies.clientAddress(request) });
	setSessionCookie(response, settings.publicBaseUrl, started.token);
	const live = await authenticateSession(context, { token: started.token });
	if (!live) throw new AppError("INTERNAL_ERROR", "The new session could not be read back");
	return describeSession(context, live);
}
