import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../server/modules/api-keys/create-api-key";
import { createKnowledgeSource } from "../../server/modules/knowledge/create-knowledge-source";
import { listKnowledgeSources } from "../../server/modules/knowledge/list-knowledge-sources";
import { createUseCaseContext } from "../../server/modules/platform-services";
import { createUser } from "../../server/modules/tenancy/create-user";
import { AppError } from "../../server/shared/app-error";
import type { McpScope, Principal } from "../../server/shared/principal";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

/**
 * Who may do what, decided once in the domain (server/modules/access) for every transport: the
 * same use case refuses an API key, a user of the wrong role or scope, or an organization the
 * connection is not bound to.
 */
describe("authorization of use cases", () => {
	let platform: TestPlatform;
	let home: TestWorkspace;
	let elsewhere: TestWorkspace;
	const users: Record<string, string> = {};

	beforeAll(async () => {
		platform = await startTestPlatform();
		home = await platform.createWorkspace();
		elsewhere = await platform.createWorkspace();
		for (const role of ["viewer", "member", "admin"]) {
			users[role] = (await createUser(platform.operator(), { email: `${role}-${Date.now()}@example.com`, password: "correct horse battery", organizationId: home.organizationId, role })).userId;
		}
	});
	afterAll(async () => {
		await platform?.stop();
	});

	const as = (userId: string, scopes: McpScope[], organizationId: string | null = home.organizationId) => {
		const principal: Principal = { kind: "user", userId, clientId: "client_test", connectionId: "conn_test", organizationId, scopes: new Set(scopes) };
		return createUseCaseContext(platform.services, principal);
	};
	const refusal = async (attempt: Promise<unknown>) => {
		const error = await attempt.then(
			() => undefined,
			(caught: unknown) => caught,
		);
		expect(error).toBeInstanceOf(AppError);
		return { code: (error as AppError).code, message: (error as AppError).message };
	};

	it("lets a viewer read and refuses them a change, naming the role it needs", async () => {
		const viewer = as(users.viewer, ["mcp:read", "mcp:write"]);
		expect((await listKnowledgeSources(viewer, { workspaceId: home.workspaceId, limit: 10 })).data).toEqual([]);
		expect(await refusal(createKnowledgeSource(viewer, { workspaceId: home.workspaceId, name: "Nope" }))).toEqual({
			code: "FORBIDDEN",
			message: "Your role in this organization (viewer) cannot do this; it needs member or above",
		});
	});

	it("needs the token scope as well as the role", async () => {
		expect((await refusal(createKnowledgeSource(as(users.member, ["mcp:read"]), { workspaceId: home.workspaceId, name: "Nope" }))).code).toBe("FORBIDDEN");
		const created = await createKnowledgeSource(as(users.member, ["mcp:read", "mcp:write"]), { workspaceId: home.workspaceId, name: "Allowed" });
		expect(created.name).toBe("Allowed");
	});

	it("reaches only the organization the connection is bound to, and workspaces of organizations the user belongs to", async () => {
		// The owner of `home` is not a member of `elsewhere`'s organization: its workspace does not exist for them.
		expect((await refusal(listKnowledgeSources(as(home.userId, ["mcp:read"]), { workspaceId: elsewhere.workspaceId, limit: 10 }))).code).toBe("NOT_FOUND");
		expect((await refusal(listKnowledgeSources(as(home.userId, ["mcp:read"], null), { workspaceId: elsewhere.workspaceId, limit: 10 }))).code).toBe("NOT_FOUND");
		// Bound to `elsewhere`'s organization, the owner of `home` cannot act on `home` through this connection.
		expect((await refusal(listKnowledgeSources(as(home.userId, ["mcp:read"], elsewhere.organizationId), { workspaceId: home.workspaceId, limit: 10 }))).code).toBe("NOT_FOUND");
		// An all-organizations connection reaches every organization the user belongs to.
		expect((await listKnowledgeSources(as(home.userId, ["mcp:read"], null), { workspaceId: home.workspaceId, limit: 10 })).data.length).toBeGreaterThan(0);
	});

	it("keeps administration to admins with the admin scope, unless the organization disabled it over MCP", async () => {
		// A context per call, as each request or tool call gets.
		const admin = () => as(users.admin, ["mcp:read", "mcp:admin"]);
		expect((await refusal(createApiKey(as(users.member, ["mcp:admin"]), { workspaceId: home.workspaceId, name: "k" }))).code).toBe("FORBIDDEN");
		expect((await createApiKey(admin(), { workspaceId: home.workspaceId, name: "by admin" })).key).toMatch(/^csk_live_/);
		await platform.orm.em.fork().getConnection().execute("update organizations set mcp_admin_disabled = true where id = ?", [home.organizationId]);
		try {
			expect(await refusal(createApiKey(admin(), { workspaceId: home.workspaceId, name: "k" }))).toEqual({
				code: "FORBIDDEN",
				message: "An owner of this organization has disabled administration over MCP",
			});
		} finally {
			await platform.orm.em.fork().getConnection().execute("update organizations set mcp_admin_disabled = false where id = ?", [home.organizationId]);
		}
	});

	it("refuses API keys what only members do, and another workspace's id", async () => {
		const [principal] = await platform.services.orm.em
			.fork()
			.getConnection()
			.execute<{ id: string }[]>("select id from api_keys where workspace_id = ? limit 1", [home.workspaceId]);
		const key = createUseCaseContext(platform.services, { kind: "api_key", apiKeyId: principal.id, workspaceId: home.workspaceId, scopes: new Set(["knowledge:read", "knowledge:write", "runtime:execute"]) });
		expect((await refusal(createApiKey(key, { workspaceId: home.workspaceId, name: "k" }))).code).toBe("FORBIDDEN");
		expect((await refusal(listKnowledgeSources(key, { workspaceId: elsewhere.workspaceId, limit: 10 }))).code).toBe("NOT_FOUND");
	});
});
