import { lookup as systemLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import { createUser } from "../../server/modules/tenancy/create-user";
import { type DashboardSession, signInToDashboard } from "../helpers/dashboard-session";
import { runOperatorCli } from "../helpers/operator-cli";
import { startTestPlatform, TEST_PASSWORD, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, type RecordedRequest, type ScriptedAnswer, startProviderStandIn } from "../helpers/provider-stand-in";

/**
 * The dashboard's administration routes (API keys, provider credentials, members, invitations,
 * organization settings) over a real server and PostgreSQL, with a browser's session (cookie and
 * CSRF token). Names that the test resolves: `internal-provider.test` is 127.0.0.2, an address the
 * egress policy refuses (only 127.0.0.1 is allowed, as EGRESS_ALLOW_HOSTS would allow a local server).
 */
const GOOD_KEY = "sk-admin-good-key-0123456789";
const WRONG_KEY = "sk-admin-wrong-key-9876543210";
const RESOLVED_BY_TEST: Record<string, string> = { "internal-provider.test": "127.0.0.2" };
const lookup = async (hostname: string): Promise<LookupAddress[]> => {
	const address = RESOLVED_BY_TEST[hostname];
	return address ? [{ address, family: 4 }] : systemLookup(hostname, { all: true });
};

/** The stand-in as OpenAI answers GET /v1/models: the list for the right key, 401 (quoting the key, masked) for any other. */
function modelsEndpoint(request: RecordedRequest): ScriptedAnswer | undefined {
	if (!request.path.endsWith("/models")) return undefined;
	if (request.headers.authorization !== `Bearer ${GOOD_KEY}`) {
		return { kind: "error", status: 401, message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7, 12)}***${String(request.headers.authorization).slice(-4)}.`, code: "invalid_api_key" };
	}
	return { kind: "raw", status: 200, body: JSON.stringify({ object: "list", data: ["gpt-4o-mini", "gpt-4o", "text-embedding-3-small"].map((id) => ({ id, object: "model", owned_by: "system" })) }) };
}

let platform: TestPlatform;
let standIn: ProviderStandIn;
let internal: ProviderStandIn;
let home: TestWorkspace;
let other: TestWorkspace;
const people: Record<"admin" | "member" | "viewer", { userId: string; email: string }> = {} as never;

beforeAll(async () => {
	[standIn, internal] = await Promise.all([startProviderStandIn(), startProviderStandIn({ host: "127.0.0.2" })]);
	platform = await startTestPlatform({ egress: { allowList: parseEgressAllowList("127.0.0.1"), lookup } });
	[home, other] = [await platform.createWorkspace(), await platform.createWorkspace()];
	for (const role of ["admin", "member", "viewer"] as const) {
		const email = `${role}-${Date.now()}@example.com`;
		people[role] = { email, userId: (await createUser(platform.operator(), { email, password: TEST_PASSWORD, organizationId: home.organizationId, role })).userId };
	}
});
afterAll(async () => {
	await platform?.stop();
	await Promise.all([standIn?.close(), internal?.close()]);
});
beforeEach(() => {
	standIn.reset();
	standIn.responder = modelsEndpoint;
	internal.reset();
});

const signIn = (email: string, password = TEST_PASSWORD) => signInToDashboard(platform.url, email, password);

async function answer(session: DashboardSession, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
	const response = await session.call(platform.url, method, path, body);
	const text = await response.text();
	return { status: response.status, body: text ? JSON.parse(text) : {}, text };
}

const keys = (workspace: TestWorkspace) => `/management/workspaces/${workspace.workspaceId}/api-keys`;
const credentials = (workspace: TestWorkspace) => `/management/workspaces/${workspace.workspaceId}/provider-credentials`;
const members = (workspace: TestWorkspace) => `/management/organizations/${workspace.organizationId}/members`;
const invitations = (workspace: TestWorkspace) => `/management/organizations/${workspace.organizationId}/invitations`;
const settings = (workspace: TestWorkspace) => `/management/organizations/${workspace.organizationId}/mcp-administration`;

/** No session: what the invitation page does before anyone signs in. */
function publicCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
	return fetch(`${platform.url}${path}`, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
}

describe("validation names the offending fields", () => {
	it("on keys, credentials, members, invitations and settings", async () => {
		const owner = await signIn(home.ownerEmail);
		const key = await answer(owner, "POST", keys(home), { name: "  ", scopes: ["runtime:execute", "bogus"], extra: true });
		expect(key.status).toBe(400);
		expect(key.body.code).toBe("VALIDATION_ERROR");
		expect((key.body.fields as { field: string }[]).map((field) => field.field).sort()).toEqual(["extra", "name", "scopes[1]"]);

		const noBaseUrl = await answer(owner, "PUT", `${credentials(home)}/openai-compatible`, { apiKey: GOOD_KEY });
		expect(noBaseUrl.body.fields).toEqual([{ field: "baseUrl", issue: "Required for openai-compatible" }]);
		const notHttp = await answer(owner, "PUT", `${credentials(home)}/openai`, { apiKey: GOOD_KEY, baseUrl: "ftp://files.example.com" });
		expect(notHttp.body.fields).toEqual([{ field: "baseUrl", issue: "Must be an http(s) URL" }]);
		const refused = await answer(owner, "PUT", `${credentials(home)}/openai`, { apiKey: GOOD_KEY, baseUrl: `${internal.baseUrl}` });
		expect(refused.status).toBe(400);
		expect(refused.body.fields).toEqual([{ field: "baseUrl", issue: expect.stringMatching(/^Refused by the egress policy: 127\.0\.0\.2 is a special-use address .*EGRESS_ALLOW_HOSTS/) }]);
		expect((await answer(owner, "PUT", `${credentials(home)}/anthropic`, { apiKey: GOOD_KEY })).body.fields).toEqual([{ field: "provider", issue: expect.stringContaining("openai") }]);

		const invite = await answer(owner, "POST", invitations(home), { email: "not an address", role: "boss" });
		expect((invite.body.fields as { field: string }[]).map((field) => field.field).sort()).toEqual(["email", "role"]);
		expect(invite.body.fields).toContainEqual({ field: "email", issue: "Not an email address" });
		expect((await answer(owner, "PATCH", `${members(home)}/${people.viewer.userId}`, { role: "boss" })).body.fields).toEqual([{ field: "role", issue: expect.any(String) }]);
		expect((await answer(owner, "PUT", settings(home), { enabled: "yes" })).body.fields).toEqual([{ field: "enabled", issue: "Expected boolean, received string" }]);
	});

	it("refuses a huge email at once, without running its pattern (quadratic on dotted text) over it", async () => {
		const owner = await signIn(home.ownerEmail);
		for (const pairs of [1_000, 10_000, 100_000]) {
			// Every dot is a place the pattern could split the domain: on 200,000 characters, minutes of backtracking.
			const email = `a@${"b.".repeat(pairs)}@`;
			const started = performance.now();
			const [invite, health] = await Promise.all([
				answer(owner, "POST", invitations(home), { email, role: "viewer" }),
				(async () => {
					const asked = performance.now();
					await fetch(`${platform.url}/healthz`);
					return performance.now() - asked;
				})(),
			]);
			expect(invite.status).toBe(400);
			expect(invite.body.fields).toContainEqual({ field: "email", issue: "String must contain at most 320 character(s)" });
			expect(health).toBeLessThan(1000);
			expect(performance.now() - started).toBeLessThan(2000);
		}
	});
});

describe("another organization's ids are NOT_FOUND", () => {
	it("for its workspace's keys and credentials, its members, invitations and settings, and its key named under our workspace", async () => {
		const owner = await signIn(home.ownerEmail);
		const theirs = await signIn(other.ownerEmail);
		const theirKey = (await answer(theirs, "POST", keys(other), { name: "Theirs", scopes: ["knowledge:read"] })).body as { id: string; key: string };
		const theirInvitation = (await answer(theirs, "POST", invitations(other), { email: `guest-${Date.now()}@example.com`, role: "viewer" })).body as { id: string };
		const attempts: [string, string, unknown?][] = [
			["GET", keys(other)],
			["POST", keys(other), { name: "Mine now" }],
			["DELETE", `${keys(other)}/${theirKey.id}`],
			["DELETE", `${keys(home)}/${theirKey.id}`],
			["GET", credentials(other)],
			["PUT", `${credentials(other)}/openai`, { apiKey: GOOD_KEY, baseUrl: standIn.baseUrl }],
			["POST", `${credentials(other)}/openai/test`],
			["DELETE", `${credentials(other)}/openai`],
			["GET", members(other)],
			["PATCH", `${members(other)}/${other.userId}`, { role: "viewer" }],
			["PATCH", `${members(home)}/${other.userId}`, { role: "viewer" }],
			["DELETE", `${members(other)}/${other.userId}`],
			["GET", invitations(other)],
			["POST", invitations(other), { email: "intruder@example.com", role: "owner" }],
			["DELETE", `${invitations(other)}/${theirInvitation.id}`],
			["DELETE", `${invitations(home)}/${theirInvitation.id}`],
			["PUT", settings(other), { enabled: false }],
		];
		for (const [method, path, body] of attempts) {
			const refused = await answer(owner, method, path, body);
			expect(refused.status, `${method} ${path}`).toBe(404);
			expect(refused.body.code, `${method} ${path}`).toBe("NOT_FOUND");
		}
		// Nothing of theirs changed.
		expect((await publicCall("GET", "/knowledge/sources", undefined, { authorization: `Bearer ${theirKey.key}` })).status).toBe(200);
		expect(((await answer(theirs, "GET", invitations(other))).body.data as { id: string; status: string }[]).find((found) => found.id === theirInvitation.id)?.status).toBe("pending");
		expect(((await answer(theirs, "GET", members(other))).body.data as { role: string }[]).map((member) => member.role)).toEqual(["owner"]);
	});
});

describe("roles", () => {
	it("keeps keys, credentials, members and invitations to admins and owners, saying which role it needs", async () => {
		for (const role of ["member", "viewer"] as const) {
			const session = await signIn(people[role].email);
			for (const [method, path, body] of [
				["GET", keys(home)],
				["POST", keys(home), { name: "Mine" }],
				["GET", credentials(home)],
				["PUT", `${credentials(home)}/openai`, { apiKey: GOOD_KEY }],
				["GET", members(home)],
				["DELETE", `${members(home)}/${people.viewer.userId}`],
				["GET", invitations(home)],
				["POST", invitations(home), { email: "friend@example.com", role: "viewer" }],
			] as [string, string, unknown?][]) {
				const refused = await answer(session, method, path, body);
				expect(refused.status, `${role} ${method} ${path}`).toBe(403);
				expect(refused.body).toMatchObject({ code: "FORBIDDEN", message: `Your role in this organization (${role}) cannot do this; it needs admin or above` });
			}
		}
		const admin = await signIn(people.admin.email);
		for (const path of [keys(home), credentials(home), members(home), invitations(home)]) expect((await answer(admin, "GET", path)).status, path).toBe(200);
		expect((await answer(admin, "POST", keys(home), { name: "By an admin" })).status).toBe(201);
	});

	it("keeps ownership and the organization's settings to owners", async () => {
		const admin = await signIn(people.admin.email);
		expect(await answer(admin, "POST", invitations(home), { email: "new-owner@example.com", role: "owner" })).toMatchObject({ status: 403, body: { message: "Only an owner invites an owner" } });
		expect((await answer(admin, "PATCH", `${members(home)}/${people.viewer.userId}`, { role: "owner" })).status).toBe(403);
		expect((await answer(admin, "PATCH", `${members(home)}/${home.userId}`, { role: "admin" })).status).toBe(403);
		expect((await answer(admin, "DELETE", `${members(home)}/${home.userId}`)).body).toMatchObject({ code: "FORBIDDEN", message: "Only an owner removes an owner" });
		expect(await answer(admin, "PUT", settings(home), { enabled: false })).toMatchObject({
			status: 403,
			body: { message: "Your role in this organization (admin) cannot do this; it needs owner or above" },
		});

		const owner = await signIn(home.ownerEmail);
		expect((await answer(owner, "PUT", settings(home), { enabled: false })).body).toEqual({ organizationId: home.organizationId, mcpAdministration: "disabled" });
		const described = (await answer(owner, "GET", "/management/session")).body as { organizations: { id: string; mcpAdministration: string }[] };
		expect(described.organizations.find((organization) => organization.id === home.organizationId)?.mcpAdministration).toBe("disabled");
		// A person's own session is not an MCP connection: the switch does not stop the dashboard.
		expect((await answer(owner, "GET", members(home))).status).toBe(200);
		expect((await answer(owner, "PUT", settings(home), { enabled: true })).body).toMatchObject({ mcpAdministration: "enabled" });
	});

	it("never lets the last owner be removed or demoted, by themselves or anyone", async () => {
		const owner = await signIn(home.ownerEmail);
		for (const [method, body] of [
			["DELETE", undefined],
			["PATCH", { role: "admin" }],
		] as const) {
			const refused = await answer(owner, method, `${members(home)}/${home.userId}`, body);
			expect(refused.status).toBe(400);
			expect(refused.body).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("last owner") });
		}
		expect(((await answer(owner, "GET", members(home))).body.data as { userId: string; role: string }[]).find((member) => member.userId === home.userId)?.role).toBe("owner");
	});
});

describe("API keys", () => {
	it("shows the secret once; lists name, prefix, scopes and last use; revoking refuses its next request", async () => {
		const admin = await signIn(people.admin.email);
		const created = await answer(admin, "POST", keys(home), { name: "  Reporting job ", scopes: ["knowledge:read"] });
		expect(created.status).toBe(201);
		const { id, key, keyPrefix } = created.body as { id: string; key: string; keyPrefix: string };
		expect(created.body).toMatchObject({ name: "Reporting job", scopes: ["knowledge:read"], workspaceId: home.workspaceId });
		expect(key.startsWith(keyPrefix)).toBe(true);
		expect((await publicCall("GET", "/knowledge/sources", undefined, { authorization: `Bearer ${key}` })).status).toBe(200);

		// Its use is recorded off the request's path: poll until the list shows it.
		let listed = await answer(admin, "GET", keys(home));
		for (let attempt = 0; attempt < 100 && !(listed.body.data as { id: string; lastUsedAt: string | null }[]).find((found) => found.id === id)?.lastUsedAt; attempt++) {
			await new Promise((resolve) => setTimeout(resolve, 50));
			listed = await answer(admin, "GET", keys(home));
		}
		expect(listed.text).not.toContain(key);
		expect((listed.body.data as { id: string }[]).find((found) => found.id === id)).toMatchObject({
			name: "Reporting job",
			keyPrefix,
			scopes: ["knowledge:read"],
			createdByUserId: people.admin.userId,
			lastUsedAt: expect.any(String),
			revokedAt: null,
		});

		expect((await answer(admin, "DELETE", `${keys(home)}/${id}`)).body).toMatchObject({ id, revokedAt: expect.any(String) });
		const refused = await publicCall("GET", "/knowledge/sources", undefined, { authorization: `Bearer ${key}` });
		expect(refused.status).toBe(401);
		expect(await refused.json()).toMatchObject({ code: "INVALID_CREDENTIALS" });
		expect(((await answer(admin, "GET", keys(home))).body.data as { id: string }[]).map((found) => found.id)).not.toContain(id);
		expect(((await answer(admin, "GET", `${keys(home)}?includeRevoked=true`)).body.data as { id: string }[]).map((found) => found.id)).toContain(id);
	});
});

describe("provider credentials", () => {
	it("tests a key with the provider's models list: works with the right key, says why not with a wrong one, never shows either", async () => {
		const admin = await signIn(people.admin.email);
		const stored = await answer(admin, "PUT", `${credentials(home)}/openai`, { apiKey: GOOD_KEY, baseUrl: standIn.baseUrl });
		expect(stored.body).toMatchObject({ provider: "openai", apiKeyHint: GOOD_KEY.slice(-4), baseUrl: standIn.baseUrl });
		expect(stored.text).not.toContain(GOOD_KEY);

		const works = await answer(admin, "POST", `${credentials(home)}/openai/test`);
		expect(works.status).toBe(200);
		expect(works.body).toMatchObject({ provider: "openai", works: true, message: "openai accepted the key and lists 3 models.", modelCount: 3, models: ["gpt-4o-mini", "gpt-4o", "text-embedding-3-small"] });
		// One GET of the models list: no generation, nothing billed.
		expect(standIn.requests.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);

		await answer(admin, "PUT", `${credentials(home)}/openai`, { apiKey: WRONG_KEY, baseUrl: standIn.baseUrl });
		const fails = await answer(admin, "POST", `${credentials(home)}/openai/test`);
		expect(fails.status).toBe(200);
		expect(fails.body).toMatchObject({ works: false, message: "openai rejected the workspace's stored credential (HTTP 401); update it in the provider settings", modelCount: null });
		// Neither the key nor the provider's masked echo of it comes back.
		for (const secret of [WRONG_KEY, WRONG_KEY.slice(0, 5), GOOD_KEY]) expect(fails.text).not.toContain(secret);
		const listed = await answer(admin, "GET", credentials(home));
		expect(listed.body.data).toEqual([expect.objectContaining({ provider: "openai", apiKeyHint: WRONG_KEY.slice(-4) })]);
		expect(listed.text).not.toContain(WRONG_KEY);
	});

	it("reports a base URL the egress policy refuses, naming EGRESS_ALLOW_HOSTS, and the internal address gets no connection", async () => {
		const workspace = await platform.createWorkspace();
		const owner = await signIn(workspace.ownerEmail);
		const aimed = `http://internal-provider.test:${new URL(internal.origin).port}/v1`;
		// A name is judged when called, by what it resolves to then: storing it is allowed.
		expect((await answer(owner, "PUT", `${credentials(workspace)}/openai-compatible`, { apiKey: GOOD_KEY, baseUrl: aimed })).status).toBe(200);
		const tested = await answer(owner, "POST", `${credentials(workspace)}/openai-compatible/test`);
		expect(tested.body).toMatchObject({ works: false, message: expect.stringMatching(/^The openai-compatible base URL is refused: internal-provider\.test resolves to 127\.0\.0\.2, .*EGRESS_ALLOW_HOSTS/) });
		expect(internal.connections).toBe(0);
	});

	it("says a provider that cannot be reached does not work, and a missing credential is NOT_FOUND", async () => {
		const workspace = await platform.createWorkspace();
		const owner = await signIn(workspace.ownerEmail);
		expect((await answer(owner, "POST", `${credentials(workspace)}/mistral/test`)).status).toBe(404);
		standIn.script({ kind: "reset" });
		await answer(owner, "PUT", `${credentials(workspace)}/mistral`, { apiKey: GOOD_KEY, baseUrl: standIn.baseUrl });
		expect((await answer(owner, "POST", `${credentials(workspace)}/mistral/test`)).body).toMatchObject({ works: false, message: expect.stringContaining("mistral could not be reached") });
		expect((await answer(owner, "POST", `${credentials(workspace)}/mistral/test`)).body).toMatchObject({ works: true });
		expect((await answer(owner, "DELETE", `${credentials(workspace)}/mistral`)).body).toEqual({ provider: "mistral", deleted: true });
		expect((await answer(owner, "GET", credentials(workspace))).body.data).toEqual([]);
	});
});

describe("invitations", () => {
	const accept = (token: string, body: unknown, headers: Record<string, string> = {}) => publicCall("POST", `/management/invitations/${token}/accept`, body, headers);
	const describeLink = async (token: string) => (await publicCall("GET", `/management/invitations/${token}`)).json();

	async function invite(email: string, role = "viewer", workspace = home): Promise<{ id: string; token: string; url: string }> {
		const owner = await signIn(workspace.ownerEmail);
		const created = await answer(owner, "POST", invitations(workspace), { email, role });
		expect(created.status, created.text).toBe(201);
		return created.body as { id: string; token: string; url: string };
	}

	it("lets a new person set a password and sign in, once; the link is stored only as a hash", async () => {
		const email = `New.Person-${Date.now()}@Example.com`;
		const { id, token, url } = await invite(email, "member");
		expect(url).toBe(`${platform.services.settings.publicBaseUrl}/invitations/${token}`);
		const rows = await platform.orm.em.fork().getConnection().execute<{ token_hash: string }[]>("select token_hash from invitations where id = ?", [id]);
		expect(rows[0].token_hash).not.toContain(token);
		expect(await describeLink(token)).toMatchObject({ organizationName: expect.any(String), email: email.toLowerCase(), role: "member", status: "pending", accountExists: false });

		const tooShort = await accept(token, { password: "short", name: "New Person" });
		expect(tooShort.status).toBe(400);
		expect(await tooShort.json()).toMatchObject({ fields: [{ field: "password", issue: "At least 10 characters" }] });

		const accepted = await accept(token, { password: "a brand new password", name: "New Person" });
		expect(accepted.status).toBe(200);
		const session = (await accepted.json()) as { user: { email: string; name: string }; organizations: { id: string; role: string }[] };
		expect(session.user).toMatchObject({ email: email.toLowerCase(), name: "New Person" });
		expect(session.organizations).toEqual([expect.objectContaining({ id: home.organizationId, role: "member" })]);
		const cookie = accepted.headers.getSetCookie().find((value) => value.startsWith("session="))?.split(";")[0] as string;
		expect((await publicCall("GET", "/management/session", undefined, { cookie })).status).toBe(200);
		// The password works for signing in afterwards.
		await signIn(email, "a brand new password");

		const again = await accept(token, { password: "a brand new password" });
		expect(again.status).toBe(400);
		expect(await again.json()).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("already been used") });
		expect(await describeLink(token)).toMatchObject({ status: "accepted" });
		// Used invitations leave the list; the membership is there instead.
		const owner = await signIn(home.ownerEmail);
		expect(((await answer(owner, "GET", invitations(home))).body.data as { id: string }[]).map((found) => found.id)).not.toContain(id);
	});

	it("accepts for an existing account only with its password, through the sign-in check", async () => {
		const { token } = await invite(other.ownerEmail, "admin");
		expect(await describeLink(token)).toMatchObject({ accountExists: true, role: "admin" });
		const wrong = await accept(token, { password: "not the password" });
		expect(wrong.status).toBe(401);
		expect(await wrong.json()).toMatchObject({ code: "INVALID_CREDENTIALS" });
		const accepted = await accept(token, { password: TEST_PASSWORD, name: "ignored for an existing account" });
		expect(accepted.status).toBe(200);
		const session = (await accepted.json()) as { user: { name: string | null }; organizations: { id: string; role: string }[] };
		expect(session.user.name).toBeNull();
		expect(session.organizations.map((organization) => [organization.id, organization.role]).sort()).toEqual(
			[
				[home.organizationId, "admin"],
				[other.organizationId, "owner"],
			].sort(),
		);
	});

	it("says in words that a link is withdrawn, expired, replaced or unknown", async () => {
		const owner = await signIn(home.ownerEmail);
		const revoked = await invite(`revoked-${Date.now()}@example.com`);
		expect((await answer(owner, "DELETE", `${invitations(home)}/${revoked.id}`)).status).toBe(200);
		expect(await describeLink(revoked.token)).toMatchObject({ status: "revoked" });
		expect(await (await accept(revoked.token, { password: "a long enough password" })).json()).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringMatching(/^This invitation was withdrawn\. Ask an administrator of .+ for a new one\.$/) });

		const expired = await invite(`expired-${Date.now()}@example.com`);
		await platform.orm.em.fork().getConnection().execute("update invitations set expires_at = now() - interval '1 minute' where id = ?", [expired.id]);
		expect(await describeLink(expired.token)).toMatchObject({ status: "expired" });
		expect(await (await accept(expired.token, { password: "a long enough password" })).json()).toMatchObject({ message: expect.stringMatching(/^This invitation expired on \d{4}-\d\d-\d\d\. Ask an administrator/) });
		// Expired ones stay listed a while, marked, so they can be sent again.
		expect(((await answer(owner, "GET", invitations(home))).body.data as { id: string; status: string }[]).find((found) => found.id === expired.id)?.status).toBe("expired");

		const email = `twice-${Date.now()}@example.com`;
		const first = await invite(email);
		const second = await invite(email);
		expect(await describeLink(first.token)).toMatchObject({ status: "revoked" });
		expect(await describeLink(second.token)).toMatchObject({ status: "pending" });

		for (const token of ["not-a-token", "A".repeat(43)]) {
			const unknown = await publicCall("GET", `/management/invitations/${token}`);
			expect(unknown.status).toBe(404);
			expect(await unknown.json()).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("This invitation link is not valid") });
		}
	});

	it("is accepted once when two tries race, and never from another site", async () => {
		const { token } = await invite(`race-${Date.now()}@example.com`);
		const crossSite = await accept(token, { password: "a long enough password" }, { origin: "https://evil.example" });
		expect(crossSite.status).toBe(403);
		expect(await describeLink(token)).toMatchObject({ status: "pending" });
		const outcomes = await Promise.all([accept(token, { password: "a long enough password" }), accept(token, { password: "another long password" })]);
		expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
		const [{ count }] = await platform.orm.em.fork().getConnection().execute<{ count: string }[]>("select count(*) from users where email like 'race-%'");
		expect(Number(count)).toBe(1);

		// An existing account, its right password twice at once: one membership, one refusal saying the link was used.
		const email = `race-existing-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email, password: TEST_PASSWORD, organizationId: other.organizationId, role: "viewer" });
		const existing = await invite(email, "member");
		const both = await Promise.all([accept(existing.token, { password: TEST_PASSWORD }), accept(existing.token, { password: TEST_PASSWORD })]);
		const [accepted, refused] = [...both].sort((left, right) => left.status - right.status);
		expect(accepted.status).toBe(200);
		// The loser is refused either at the link (used) or, when both reach the sign-in path at once, by its
		// password-check line or throttle (429, nothing claimed): never a second membership.
		expect([400, 429]).toContain(refused.status);
		if (refused.status === 400) expect(await refused.json()).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("already been used") });
		else expect(await refused.json()).toMatchObject({ code: "RATE_LIMITED" });
		const [{ members }] = await platform.orm.em.fork().getConnection().execute<{ members: string }[]>(
			"select count(*) as members from memberships m join users u on u.id = m.user_id where u.email = ?",
			[email],
		);
		expect(Number(members)).toBe(2);
	});
});

describe("a removed or demoted member", () => {
	it("finds their session refused on its next request", async () => {
		const owner = await signIn(home.ownerEmail);
		const email = `leaving-${Date.now()}@example.com`;
		const { userId } = await createUser(platform.operator(), { email, password: TEST_PASSWORD, organizationId: home.organizationId, role: "admin" });
		const leaving = await signIn(email);
		expect((await answer(leaving, "GET", keys(home))).status).toBe(200);

		expect((await answer(owner, "PATCH", `${members(home)}/${userId}`, { role: "viewer" })).body).toEqual({ userId, role: "viewer" });
		expect(await answer(leaving, "GET", keys(home))).toMatchObject({ status: 403, body: { message: "Your role in this organization (viewer) cannot do this; it needs admin or above" } });

		expect((await answer(owner, "DELETE", `${members(home)}/${userId}`)).body).toEqual({ userId, removed: true });
		// The very next request: the organization and its workspaces no longer exist for this session.
		expect(await answer(leaving, "GET", members(home))).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
		expect(await answer(leaving, "POST", keys(home), { name: "On the way out" })).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
		const session = (await answer(leaving, "GET", "/management/session")).body as { organizations: unknown[] };
		expect(session.organizations).toEqual([]);
	});
});

describe("the operator CLI", { timeout: 120_000 }, () => {
	it("creates an invitation whose link works, and tests a credential", async () => {
		const email = `cli-invited-${Date.now()}@example.com`;
		const created = await runOperatorCli(platform.databaseUrl, ["invitation", "create", "--organization", home.organizationId, "--email", email, "--role", "viewer"]);
		expect(created.code, created.stderr).toBe(0);
		const { url } = JSON.parse(created.stdout) as { url: string };
		const token = url.slice(url.lastIndexOf("/") + 1);
		expect((await accept(token, { password: "a long enough password" })).status).toBe(200);

		const workspace = await platform.createWorkspace();
		await runOperatorCli(platform.databaseUrl, ["provider-credential", "set", "--workspace", workspace.workspaceId, "--provider", "openai", "--api-key", GOOD_KEY, "--base-url", standIn.baseUrl]);
		const tested = await runOperatorCli(platform.databaseUrl, ["provider-credential", "test", "--workspace", workspace.workspaceId, "--provider", "openai"]);
		expect(tested.code, tested.stderr).toBe(0);
		expect(JSON.parse(tested.stdout)).toMatchObject({ works: true, modelCount: 3 });
		expect(tested.stdout).not.toContain(GOOD_KEY);
	});

	function accept(token: string, body: unknown) {
		return publicCall("POST", `/management/invitations/${token}/accept`, body);
	}
});
