import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { setSecret } from "../../server/modules/workspace-secrets/set-secret";
import { listenOnLoopback, type LoopbackServer } from "../helpers/loopback-server";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";

/**
 * The mcp tool kind against a local MCP server built with @modelcontextprotocol/sdk, over
 * Streamable HTTP on 127.0.0.1 (allowed through EGRESS_ALLOW_HOSTS in tests).
 */
const TOKEN = "mcp-SECRET-token-1234";
let platform: TestPlatform;
let standIn: ProviderStandIn;
let mcp: LoopbackServer;
const calls: { tool: string; args: unknown; authorization: string | undefined }[] = [];
let listRequests = 0;

beforeAll(async () => {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
	const server = createServer(async (request, response) => {
		const authorization = request.headers.authorization;
		const mcpServer = new McpServer({ name: "local-tools", version: "1.0.0" });
		mcpServer.registerTool("lookup_order", { description: "Looks an order up", inputSchema: { orderId: z.string() } }, async ({ orderId }) => {
			calls.push({ tool: "lookup_order", args: { orderId }, authorization });
			return { content: [{ type: "text", text: `Order ${orderId} shipped on Monday` }] };
		});
		mcpServer.registerTool("delete_everything", { description: "Deletes every order", inputSchema: {} }, async () => {
			calls.push({ tool: "delete_everything", args: {}, authorization });
			return { content: [{ type: "text", text: "deleted" }] };
		});
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
		response.on("close", () => {
			transport.close().catch(() => {});
			mcpServer.close().catch(() => {});
		});
		let body = "";
		for await (const chunk of request) body += String(chunk);
		const parsed = body ? JSON.parse(body) : undefined;
		if (parsed?.method === "tools/list") listRequests += 1;
		await mcpServer.connect(transport);
		await transport.handleRequest(request, response, parsed);
	});
	mcp = await listenOnLoopback(server);
});
afterAll(async () => {
	await Promise.all([standIn?.close(), mcp?.close()]);
	await platform?.stop();
});

describe("mcp tools", () => {
	it("calls the allowed tool on the local MCP server as <name>_<tool>, with the secret header; a tool outside the allow-list is never offered", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "ORDERS_TOKEN", value: TOKEN });
		const context = () => platform.operator();
		await createAssistant(context(), { workspaceId: workspace.workspaceId, slug: "orders", name: "orders" });
		await updateAssistantDraft(context(), {
			workspaceId: workspace.workspaceId,
			slug: "orders",
			patch: {
				generation: { maxRetries: 0 },
				tools: [{ type: "mcp", name: "shop", description: "The shop's order system", url: `${mcp.origin}/mcp`, headers: { Authorization: "Bearer {{secret:ORDERS_TOKEN}}" }, allowedTools: ["lookup_order"] }],
			},
		});
		const version = await createAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "orders" });
		await publishAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "orders", version: version.version });
		standIn.responder = (request) => {
			const messages = request.body.messages as { role: string; content: string }[];
			const result = messages.find((message) => message.role === "tool");
			return result ? { kind: "completion", content: `Answer: ${result.content}` } : { kind: "completion", toolCalls: [{ name: "shop_lookup_order", arguments: { orderId: "A-17" } }] };
		};
		const ask = async () => {
			const response = await platform.request("POST", "/runtime/assistants/orders", { key: workspace.apiKey, body: { input: "Where is order A-17?" } });
			expect(response.status).toBe(200);
			return (await response.json()) as { message: { content: string }; toolCalls: { name: string; ok: boolean }[] };
		};
		const body = await ask();
		expect(body.toolCalls).toMatchObject([{ name: "shop_lookup_order", ok: true }]);
		expect(body.message.content).toBe("Answer: Order A-17 shipped on Monday");
		expect(calls).toEqual([{ tool: "lookup_order", args: { orderId: "A-17" }, authorization: `Bearer ${TOKEN}` }]);
		const offered = (standIn.requests[0]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
		expect(offered).toEqual(["shop_lookup_order"]);

		// A model asking for a tool it was not offered gets an error result; the server never sees it.
		standIn.reset();
		standIn.script({ kind: "completion", toolCalls: [{ name: "shop_delete_everything", arguments: {} }] }, { kind: "completion", content: "ok" });
		const refused = (await (await platform.request("POST", "/runtime/assistants/orders", { key: workspace.apiKey, body: { input: "Delete all" } })).json()) as {
			toolCalls: { ok: boolean; error: string }[];
		};
		expect(refused.toolCalls[0]).toMatchObject({ ok: false, error: "There is no tool named shop_delete_everything" });
		expect(calls.map((call) => call.tool)).not.toContain("delete_everything");

		// The tool list was read once and cached.
		await ask();
		expect(listRequests).toBe(1);
	});
});
