import type { IncomingMessage, ServerResponse } from "node:http";
import { checkConsentChoice, recordConnection } from "../modules/oauth/approve-connection";
import { isMcpScope, scopesForRole } from "../modules/oauth/connection-scopes";
import { listUserOrganizations } from "../modules/oauth/list-user-organizations";
import { signInUser } from "../modules/oauth/sign-in-user";
import { authenticateSession, type LiveSession } from "../modules/sessions/authenticate-session";
import { endSession } from "../modules/sessions/end-session";
import { startSession } from "../modules/sessions/start-session";
import { clearSessionCookie, readSessionCookie, setSessionCookie } from "../http/middleware/session-cookie";
import { createUseCaseContext, type PlatformServices } from "../modules/platform-services";
import { AppError } from "../shared/app-error";
import { MCP_SCOPES, OPERATOR } from "../shared/principal";
import type { AuthorizationServer } from "./authorization-server";
import { renderErrorPage } from "./pages/error-page";
import { readFormOrRefuse, sendPage, sign, signatureMatches } from "./pages/forms";
import { type ClientSummary, renderConsentPage, renderSignInPage } from "./pages/interaction-pages";

const INTERACTION_PATH = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(sign-in|consent|deny|switch-account))?$/;

type Interaction = Awaited<ReturnType<AuthorizationServer["provider"]["interactionDetails"]>>;

/**
 * The pages oidc-provider sends a person to during an authorization (its "interactions"): sign
 * in, then consent (organization and scopes), or deny. Server-rendered HTML, no JavaScript. Each
 * form carries a CSRF token bound to the interaction (HMAC under SECRET_KEY); the interaction
 * itself is bound to this browser by oidc-provider's cookie. Who is signed in is the dashboard's
 * session (one cookie for every page): a person signed in to the dashboard goes straight to
 * consent, and signing in here signs them in to the dashboard too.
 */
export function createInteractionRoutes(services: PlatformServices, server: AuthorizationServer) {
	const csrfKey = services.secrets.deriveKey("oauth-interaction-csrf");
	const csrfFor = (uid: string) => sign(csrfKey, `interaction:${uid}`);
	// The operator principal reads what the pages need (memberships, users); the person's own
	// identity comes from the interaction, and every choice is checked against their memberships.
	const context = () => createUseCaseContext(services, OPERATOR);

	async function clientSummary(interaction: Interaction): Promise<ClientSummary> {
		const clientId = String(interaction.params.client_id);
		const client = await server.provider.Client.find(clientId);
		return { clientId, name: client?.clientName ?? clientId, redirectUri: String(interaction.params.redirect_uri ?? "") };
	}

	async function renderConsent(interaction: Interaction, userId: string, extra: { error?: string; organization?: string; scopes?: string[] } = {}) {
		const organizations = await listUserOrganizations(context(), { userId });
		const email = ((await context().em.getConnection().execute("select email from users where id = ?", [userId])) as { email: string }[])[0]?.email ?? "";
		const offered = new Set(organizations.flatMap((organization) => scopesForRole(organization.role)));
		return renderConsentPage({
			client: await clientSummary(interaction),
			email,
			organizations,
			offeredScopes: MCP_SCOPES.filter((scope) => offered.has(scope)),
			action: `/oauth/interaction/${interaction.uid}/consent`,
			denyAction: `/oauth/interaction/${interaction.uid}/deny`,
			switchAccountAction: `/oauth/interaction/${interaction.uid}/switch-account`,
			csrf: csrfFor(interaction.uid),
			selectedOrganization: extra.organization,
			selectedScopes: extra.scopes,
			error: extra.error,
		});
	}

	/** The browser's live dashboard session, if any. */
	async function liveSession(request: IncomingMessage): Promise<LiveSession | null> {
		const token = readSessionCookie(request, services.settings.publicBaseUrl);
		return token ? authenticateSession(context(), { token }) : null;
	}

	async function showSignIn(response: ServerResponse, interaction: Interaction, status = 200, extra: { email?: string; error?: string; headers?: Record<string, string> } = {}) {
		const client = await clientSummary(interaction);
		sendPage(response, status, renderSignInPage({ client, action: `/oauth/interaction/${interaction.uid}/sign-in`, csrf: csrfFor(interaction.uid), ...extra }), extra.headers);
	}

	async function show(request: IncomingMessage, response: ServerResponse, interaction: Interaction) {
		const session = await liveSession(request);
		if (interaction.prompt.name === "login") {
			// Signed in already (the dashboard, or an earlier connection): on to consent, no form.
			if (session) return server.provider.interactionFinished(request, response, { login: { accountId: session.userId } }, { mergeWithLastSubmission: false });
			return showSignIn(response, interaction);
		}
		const accountId = interaction.session?.accountId;
		// Consent only for the person whose session this still is (signed out meanwhile, or another person signed in: sign in again).
		if (!accountId || session?.userId !== accountId) return showSignIn(response, interaction);
		sendPage(response, 200, await renderConsent(interaction, accountId));
	}

	async function signIn(request: IncomingMessage, response: ServerResponse, interaction: Interaction, form: URLSearchParams) {
		const email = form.get("email") ?? "";
		try {
			const clientAddress = services.settings.trustedProxies.clientAddress(request);
			const { userId } = await signInUser(context(), { email, password: form.get("password") ?? "", clientAddress });
			// Signed in to this server: a new dashboard session (never the one the browser brought).
			const previous = await liveSession(request);
			if (previous) await endSession(context(), { sessionId: previous.sessionId, everywhere: false });
			const started = await startSession(context(), { userId, userAgent: request.headers["user-agent"], clientAddress });
			setSessionCookie(response, services.settings.publicBaseUrl, started.token);
			await server.provider.interactionFinished(request, response, { login: { accountId: userId } }, { mergeWithLastSubmission: false });
		} catch (error) {
			if (!(error instanceof AppError) || error.status >= 500) throw error;
			await showSignIn(response, interaction, error.status, { email, error: error.message, headers: error.headers });
		}
	}

	async function consent(request: IncomingMessage, response: ServerResponse, interaction: Interaction, form: URLSearchParams) {
		const userId = interaction.session?.accountId;
		if (!userId || interaction.prompt.name !== "consent" || (await liveSession(request))?.userId !== userId) return show(request, response, interaction);
		const organization = form.get("organization") ?? "";
		const scopes = form.getAll("scope");
		let choice: Awaited<ReturnType<typeof checkConsentChoice>>;
		try {
			choice = await checkConsentChoice(context(), { userId, organization, scopes });
		} catch (error) {
			if (!(error instanceof AppError) || error.status >= 500) throw error;
			return sendPage(response, error.status, await renderConsent(interaction, userId, { error: error.message, organization, scopes }));
		}
		const clientId = String(interaction.params.client_id);
		const grant = new server.provider.Grant({ accountId: userId, clientId });
		// What was approved, and what was not (oidc-provider asks again for any scope neither granted nor rejected).
		grant.addResourceScope(server.resource, choice.scopes.join(" "));
		const notChosen = MCP_SCOPES.filter((scope) => !choice.scopes.includes(scope));
		if (notChosen.length > 0) grant.rejectResourceScope(server.resource, notChosen.join(" "));
		// OpenID scopes a client may ask for (openid, offline_access) reveal nothing beyond the user id;
		// the MCP scopes are also known to oidc-provider as such, and follow the user's choice.
		const details = interaction.prompt.details as { missingOIDCScope?: string[] };
		const openIdScopes = (details.missingOIDCScope ?? []).filter((scope) => !isMcpScope(scope) || choice.scopes.includes(scope));
		const refusedOpenIdScopes = (details.missingOIDCScope ?? []).filter((scope) => !openIdScopes.includes(scope));
		if (openIdScopes.length > 0) grant.addOIDCScope(openIdScopes.join(" "));
		if (refusedOpenIdScopes.length > 0) grant.rejectOIDCScope(refusedOpenIdScopes.join(" "));
		const grantId = await grant.save();
		const client = await clientSummary(interaction);
		// Recorded before the code is issued: access tokens name their connection (extraTokenClaims).
		await recordConnection(context(), { userId, organizationId: choice.organizationId, clientId, clientName: client.name === clientId ? null : client.name, scopes: choice.scopes, grantId });
		await server.provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
	}

	/** "Not you?": signs this browser out of the server and shows the sign-in form for the same authorization. */
	async function switchAccount(request: IncomingMessage, response: ServerResponse, interaction: Interaction) {
		const session = await liveSession(request);
		if (session) await endSession(context(), { sessionId: session.sessionId, everywhere: false });
		clearSessionCookie(response, services.settings.publicBaseUrl);
		await showSignIn(response, interaction);
	}

	async function deny(request: IncomingMessage, response: ServerResponse) {
		await server.provider.interactionFinished(
			request,
			response,
			{ error: "access_denied", error_description: "The user did not allow this application" },
			{ mergeWithLastSubmission: false },
		);
	}

	/** Answers the request when it is an interaction page; false when the path is not one. */
	return async function handle(request: IncomingMessage, response: ServerResponse, path: string): Promise<boolean> {
		const match = INTERACTION_PATH.exec(path);
		if (!match) return false;
		const [, uid, step] = match;
		const method = request.method ?? "GET";
		if ((step === undefined && method !== "GET") || (step !== undefined && method !== "POST")) {
			sendPage(response, 405, renderErrorPage({ title: "Not allowed", message: "This page cannot be used that way." }), { allow: step ? "POST" : "GET" });
			return true;
		}
		let interaction: Interaction;
		try {
			interaction = await server.provider.interactionDetails(request, response);
			if (interaction.uid !== uid) throw new Error("interaction mismatch");
		} catch {
			sendPage(
				response,
				400,
				renderErrorPage({
					title: "This sign-in link has expired",
					message: "The request to connect an application has expired, was already completed, or was opened in another browser. Go back to the application and connect again.",
				}),
			);
			return true;
		}
		if (step === undefined) {
			await show(request, response, interaction);
			return true;
		}
		const form = await readFormOrRefuse(request, response);
		if (!form) return true;
		if (!signatureMatches(csrfKey, `interaction:${uid}`, form.get("csrf"))) {
			sendPage(response, 403, renderErrorPage({ title: "The form has expired", message: "This form was not sent from this page. Go back to the application and connect again." }));
			return true;
		}
		if (step === "sign-in") await signIn(request, response, interaction, form);
		else if (step === "consent") await consent(request, response, interaction, form);
		else if (step === "switch-account") await switchAccount(request, response, interaction);
		else await deny(request, response);
		return true;
	}
}
