import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import { createUser } from "../../server/modules/tenancy/create-user";
import { connectMcpClient } from "../helpers/oauth-flow";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

const PASSWORD = "correct horse battery";

describe("the control plane over /mcp with real OAuth tokens", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let email: string;
	beforeAll(async () => {
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		email = `member-${Date.now()}@example.com`;
		await createUser(platform.operator(), { email, password: PASSWORD, organizationId: workspace.organizationId, role: "member" });
	}, 60_000);
	afterAll(async () => {
		await platform?.stop();
	});

	const clientWith = async (accessToken: string) => {
		const client = new Client({ name: "http-test-client", version: "1.0.0" });
		await client.connect(new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
		return client;
	};

	it("lists every tool with its schemas and annotations, runs whoami and a write tool, and refuses what the token's scopes do not cover", async () => {
		const tokens = await connectMcpClient(platform.url, { email, password: PASSWORD, scopes: ["mcp:write"] });
		const client = await clientWith(tokens.accessToken);
		const { tools } = await client.listTools();
		expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
		const deleteEnvironment = tools.find((tool) => tool.name === "delete_environment");
		expect(deleteEnvironment?.annotations?.destructiveHint).toBe(true);
		expect(deleteEnvironment?.inputSchema.required).toEqual(["workspaceId", "slug"]);
		expect(deleteEnvironment?.inputSchema.properties?.workspaceId).toMatchObject({ type: "string", description: expect.stringContaining("workspace") });

		const me = await client.callTool({ name: "whoami", arguments: {} });
		expect(me.structuredContent).toMatchObject({ user: { email }, organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] });
		const created = await client.callTool({ name: "create_assistant", arguments: { workspaceId: workspace.workspaceId, slug: "over-http", name: "Over HTTP" } });
		expect(created.isError).toBeFalsy();
		const listed = await client.callTool({ name: "list_assistants", arguments: { workspaceId: workspace.workspaceId } });
		expect((listed.structuredContent as { assistants: { slug: string }[] }).assistants.map((assistant) => assistant.slug)).toEqual(["over-http"]);
		const refused = await client.callTool({ name: "list_members", arguments: {} });
		expect(refused).toMatchObject({ isError: true, content: [{ type: "text", text: "FORBIDDEN: This connection was not granted 'mcp:admin'; reconnect the application and approve that scope" }] });
		await client.close();

		const audit = await platform.orm.em
			.fork()
			.getConnection()
			.execute<{ action: string; outcome: string; client_id: string }[]>(
				"select action, outcome, details->>'clientId' as client_id from audit_events where actor_id = (select id from users where email = ?) order by created_at, id",
				[email],
			);
		expect(audit.map((row) => [row.action, row.outcome])).toEqual([
			["mcp.whoami", "success"],
			["mcp.create_assistant", "success"],
			["mcp.list_assistants", "success"],
			["mcp.list_members", "denied"],
		]);
		expect(audit.every((row) => row.client_id === tokens.client.clientId)).toBe(true);
	}, 60_000);
});
