import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";

/** What a browser would keep of a sign-in: the cookie and the CSRF token. */
interface Signed {
	cookie: string;
	csrf: string;
	body: { user: { email: string }; organizations: { id: string; role: string; workspaces: { id: string }[] }[]; csrfToken: string; expiresAt: string };
}

describe("dashboard sessions (management API)", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	const call = (method: string, path: string, options: { cookie?: string; csrf?: string; body?: unknown; origin?: string } = {}) =>
		fetch(`${platform.url}${path}`, {
			method,
			headers: {
				...(options.body !== undefined ? { "content-type": "application/json" } : {}),
				...(options.cookie ? { cookie: options.cookie } : {}),
				...(options.csrf ? { "x-csrf-token": options.csrf } : {}),
				...(options.origin ? { origin: options.origin } : {}),
			},
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
		});

	async function signIn(email = workspace.ownerEmail, password = TEST_PASSWORD, cookie?: string): Promise<Signed> {
		const response = await call("POST", "/management/session", { body: { email, password }, cookie });
		expect(response.status, await response.clone().text()).toBe(200);
		const setCookie = response.headers.getSetCookie().find((value) => value.startsWith("session="));
		expect(setCookie).toBeDefined();
		const body = (await response.json()) as Signed["body"];
		return { cookie: (setCookie as string).split(";")[0], csrf: body.csrfToken, body };
	}

	it("signs in with a cookie that scripts cannot read and other sites do not send, and describes the user's organizations", async () => {
		const response = await call("POST", "/management/session", { body: { email: workspace.ownerEmail, password: TEST_PASSWORD } });
		expect(response.status).toBe(200);
		const setCookie = response.headers.getSetCookie().join("\n");
		expect(setCookie).toMatch(/^session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
		const body = await response.json();
		expect(body.user.email).toBe(workspace.ownerEmail);
		expect(body.organizations).toEqual([expect.objectContaining({ id: workspace.organizationId, role: "owner", workspaces: [expect.objectContaining({ id: workspace.workspaceId })] })]);
		// The session answers on its own afterwards.
		const cookie = setCookie.split(";")[0];
		const again = await call("GET", "/management/session", { cookie });
		expect(again.status).toBe(200);
		expect((await again.json()).csrfToken).toBe(body.csrfToken);
	});

	it("refuses a wrong password with the envelope and sets no cookie", async () => {
		const response = await call("POST", "/management/session", { body: { email: workspace.ownerEmail, password: "not it" } });
		expect(response.status).toBe(401);
		expect(await response.json()).toMatchObject({ code: "INVALID_CREDENTIALS" });
		expect(response.headers.getSetCookie()).toEqual([]);
	});

	it("refuses a change without the session's CSRF token, and any change from another origin", async () => {
		const signed = await signIn();
		const withoutToken = await call("DELETE", "/management/session", { cookie: signed.cookie });
		expect(withoutToken.status).toBe(403);
		expect(await withoutToken.json()).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("CSRF") });
		const otherSession = await signIn();
		const wrongToken = await call("DELETE", "/management/session", { cookie: signed.cookie, csrf: otherSession.csrf });
		expect(wrongToken.status).toBe(403);
		const crossSite = await call("DELETE", "/management/session", { cookie: signed.cookie, csrf: signed.csrf, origin: "https://evil.example" });
		expect(crossSite.status).toBe(403);
		const crossSiteSignIn = await call("POST", "/management/session", { body: { email: workspace.ownerEmail, password: TEST_PASSWORD }, origin: "https://evil.example" });
		expect(crossSiteSignIn.status).toBe(403);
		// Nothing was ended by the refused requests.
		expect((await call("GET", "/management/session", { cookie: signed.cookie })).status).toBe(200);
	});

	it("gives a new session at every sign-in and ends the one the browser brought", async () => {
		const first = await signIn();
		const second = await signIn(workspace.ownerEmail, TEST_PASSWORD, first.cookie);
		expect(second.cookie).not.toBe(first.cookie);
		expect((await call("GET", "/management/session", { cookie: first.cookie })).status).toBe(401);
		expect((await call("GET", "/management/session", { cookie: second.cookie })).status).toBe(200);
	});

	it("signs out this session, or every session of the user", async () => {
		const here = await signIn();
		const elsewhere = await signIn();
		const signedOut = await call("DELETE", "/management/session", { cookie: here.cookie, csrf: here.csrf, origin: new URL(platform.services.settings.publicBaseUrl).origin });
		expect(signedOut.status).toBe(200);
		expect(signedOut.headers.getSetCookie().join("\n")).toMatch(/^session=; .*Max-Age=0/);
		expect((await call("GET", "/management/session", { cookie: here.cookie })).status).toBe(401);
		expect((await call("GET", "/management/session", { cookie: elsewhere.cookie })).status).toBe(200);

		const third = await signIn();
		expect((await call("DELETE", "/management/session?everywhere=true", { cookie: third.cookie, csrf: third.csrf })).status).toBe(200);
		expect((await call("GET", "/management/session", { cookie: elsewhere.cookie })).status).toBe(401);
	});

	it("ends a session idle past its idle lifetime, and any session past its absolute lifetime", async () => {
		const idle = await signIn();
		const old = await signIn();
		const connection = platform.orm.em.getConnection();
		// Time passes for these two sessions only (no waiting): idle for 3 hours (default idle lifetime 2 h); signed in 8 days ago.
		await connection.execute("update user_sessions set last_seen_at = now() - interval '3 hours' where token_hash = encode(sha256(convert_to(?, 'utf8')), 'hex')", [idle.cookie.slice("session=".length)]);
		await connection.execute("update user_sessions set expires_at = now() - interval '1 second' where token_hash = encode(sha256(convert_to(?, 'utf8')), 'hex')", [old.cookie.slice("session=".length)]);
		const idleAnswer = await call("GET", "/management/session", { cookie: idle.cookie });
		expect(idleAnswer.status).toBe(401);
		expect(await idleAnswer.json()).toMatchObject({ code: "UNAUTHENTICATED" });
		expect(idleAnswer.headers.getSetCookie().join("\n")).toMatch(/Max-Age=0/);
		expect((await call("GET", "/management/session", { cookie: old.cookie })).status).toBe(401);
	});

	it("answers 401 without a session, and never stores the token itself", async () => {
		expect((await call("GET", "/management/session")).status).toBe(401);
		const signed = await signIn();
		const token = signed.cookie.slice("session=".length);
		const rows = (await platform.orm.em.getConnection().execute("select count(*)::int as n from user_sessions where token_hash = ? or id = ?", [token, token])) as { n: number }[];
		expect(rows[0].n).toBe(0);
	});
});
