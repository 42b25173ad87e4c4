import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditEventSchema } from "../../server/db/entities";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { connectAs, userPrincipal } from "./mcp-helpers";

describe("MCP identity tools", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	it("whoami names the user, the connection, its organization binding and scopes, and is audited", async () => {
		const principal = userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read"] });
		const session = await connectAs(platform, principal);
		const me = await session.call<{ user: { id: string; email: string }; organization: { id: string } | null; allOrganizations: boolean; scopes: string[]; connectionId: string; clientId: string }>("whoami");
		expect(me.user.id).toBe(workspace.userId);
		expect(me.user.email).toMatch(/@example\.com$/);
		expect(me.organization?.id).toBe(workspace.organizationId);
		expect(me.allOrganizations).toBe(false);
		expect(me.scopes).toEqual(["mcp:read"]);
		expect(me).toMatchObject({ clientId: principal.clientId, connectionId: principal.connectionId });
		await session.close();

		const audit = await platform.orm.em.fork().find(AuditEventSchema, { action: "mcp.whoami", actorId: workspace.userId });
		expect(audit).toHaveLength(1);
		expect(audit[0]).toMatchObject({ outcome: "success", organization: workspace.organizationId, actorType: "user" });
		expect(audit[0].details).toMatchObject({ tool: "whoami", clientId: principal.clientId, connectionId: principal.connectionId, arguments: {} });
		expect(typeof audit[0].details.durationMs).toBe("number");
	});

	it("an all-organizations connection says so", async () => {
		const session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: null }));
		const me = await session.call<{ organization: unknown; allOrganizations: boolean; scopes: string[] }>("whoami");
		expect(me.organization).toBeNull();
		expect(me.allOrganizations).toBe(true);
		expect(me.scopes).toEqual(["mcp:admin", "mcp:read", "mcp:write"]);
		await session.close();
	});
});
