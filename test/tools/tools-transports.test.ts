import { describe, expect, it } from "vitest";
import { runOperatorCli } from "../helpers/operator-cli";
import { connectAs, userPrincipal } from "../mcp/mcp-helpers";
import { useRuntimeTestbed, workspaceWithCredential } from "../runtime/runtime-fixtures";
import type { TestPlatform } from "../helpers/platform";
import type { ProviderStandIn } from "../helpers/provider-stand-in";

/**
 * Tools and secrets through every way in: MCP tools (update_assistant_draft's patch.tools,
 * run_playground, set_secret, list_secrets, delete_secret), the operator CLI (--tools, secret
 * set|list|delete) and the playground stream; the same use cases and input schemas behind each.
 */
let platform: TestPlatform;
let standIn: ProviderStandIn;
useRuntimeTestbed((started) => ({ platform, standIn } = started));

const searchTool = { type: "knowledge_search", name: "search_docs", description: "Searches the docs", sourceIds: ["src_any"] };

describe("tools and secrets through MCP and the CLI", () => {
	it("update_assistant_draft takes patch.tools, names each invalid field, and run_playground runs the loop", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId }));
		await session.call("create_assistant", { workspaceId: workspace.workspaceId, slug: "mcp-tools", name: "MCP tools" });
		const refused = await session.fail("update_assistant_draft", {
			workspaceId: workspace.workspaceId,
			slug: "mcp-tools",
			patch: {
				tools: [
					{
						type: "http",
						name: "get_weather",
						description: "Weather",
						method: "GET",
						url: "https://api.example.com/weather/{city}",
						parameters: { type: "object", properties: { city: { type: "string", pattern: "^(a+)+$" }, secret: { type: "string" } } },
					},
					{ ...searchTool, name: "get_weather" },
				],
			},
		});
		expect(refused).toContain("patch.tools[0].parameters.properties.city.pattern: Unsupported keyword 'pattern'");
		expect(refused).toContain("patch.tools[0].parameters.properties.secret: 'secret' goes nowhere");
		expect(refused).toContain("patch.tools[1].name: Tool name 'get_weather' is used twice");

		await session.call("update_assistant_draft", { workspaceId: workspace.workspaceId, slug: "mcp-tools", patch: { tools: [searchTool], generation: { maxRetries: 0, maxToolSteps: 3 } } });
		standIn.script({ kind: "completion", toolCalls: [{ name: "search_docs", arguments: { query: "install" } }] }, { kind: "completion", content: "Done." });
		const result = await session.call<{ toolCalls: { name: string; arguments: string; ok: boolean }[]; message: { content: string } }>("run_playground", {
			workspaceId: workspace.workspaceId,
			slug: "mcp-tools",
			input: "How do I install it?",
		});
		expect(result.message.content).toBe("Done.");
		expect(result.toolCalls).toMatchObject([{ name: "search_docs", arguments: '{"query":"install"}', ok: true }]);
		await session.close();
	});

	it("secrets: set_secret never returns the value, list_secrets names only, delete_secret; the CLI does the same", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const session = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId }));
		const set = await session.call("set_secret", { workspaceId: workspace.workspaceId, name: "API_TOKEN", value: "tok-SECRET-abcdef" });
		expect(JSON.stringify(set)).not.toContain("tok-SECRET");
		expect(await session.call("list_secrets", { workspaceId: workspace.workspaceId })).toMatchObject({ secrets: [{ name: "API_TOKEN" }] });
		const row = (await platform.orm.em.fork().getConnection().execute("select encrypted_value from workspace_secrets where workspace_id = ?", [workspace.workspaceId])) as { encrypted_value: string }[];
		expect(row[0]!.encrypted_value).not.toContain("tok-SECRET");
		await session.call("delete_secret", { workspaceId: workspace.workspaceId, name: "API_TOKEN" });
		expect(await session.call("list_secrets", { workspaceId: workspace.workspaceId })).toMatchObject({ secrets: [] });
		// mcp:admin only.
		const reader = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId, scopes: ["mcp:read", "mcp:write"] }));
		expect(await reader.fail("set_secret", { workspaceId: workspace.workspaceId, name: "X_TOKEN", value: "v-123456" })).toMatch(/mcp:admin/);
		await reader.close();
		await session.close();

		const cliSet = await runOperatorCli(platform.databaseUrl, ["secret", "set", "--workspace", workspace.workspaceId, "--name", "CLI_TOKEN", "--value", "cli-SECRET-987654"]);
		expect(cliSet.code).toBe(0);
		expect(cliSet.stdout).not.toContain("cli-SECRET");
		const listed = await runOperatorCli(platform.databaseUrl, ["secret", "list", "--workspace", workspace.workspaceId]);
		expect(JSON.parse(listed.stdout)).toMatchObject({ secrets: [{ name: "CLI_TOKEN" }] });
		expect((await runOperatorCli(platform.databaseUrl, ["secret", "delete", "--workspace", workspace.workspaceId, "--name", "CLI_TOKEN"])).code).toBe(0);
	});

	it("the CLI's assistant update-draft takes --tools JSON and names the invalid fields", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const admin = (...args: string[]) => runOperatorCli(platform.databaseUrl, args);
		expect((await admin("assistant", "create", "--workspace", workspace.workspaceId, "--slug", "cli-tools", "--name", "CLI tools")).code).toBe(0);
		const updated = await admin("assistant", "update-draft", "--workspace", workspace.workspaceId, "--slug", "cli-tools", "--tools", JSON.stringify([searchTool]), "--config", '{"maxRetries":0}');
		expect(updated.code, updated.stderr).toBe(0);
		expect(JSON.parse(updated.stdout)).toMatchObject({ config: { tools: [{ name: "search_docs" }] } });
		const bad = await admin("assistant", "update-draft", "--workspace", workspace.workspaceId, "--slug", "cli-tools", "--tools", '[{"type":"http","name":"x"}]');
		expect(bad.code).not.toBe(0);
		expect(bad.stderr + bad.stdout).toMatch(/--tools\[0\]\.url/);
	});
});
