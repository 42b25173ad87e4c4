import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpServer } from "../../server/mcp/create-mcp-server";
import { defineTool, READ_ONLY } from "../../server/mcp/tool-definition";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import { createUseCaseContext } from "../../server/modules/platform-services";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { createUser } from "../../server/modules/tenancy/create-user";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { connectAs, McpSession, userPrincipal } from "./mcp-helpers";

/** What a database error quotes; none of it may reach a client. */
const DATABASE_TEXT = /insert into|select |values \(|audit_events|violates|syntax error|invalid byte sequence|unsupported Unicode|relation "/i;
const UNSTORABLE = "Must not contain NUL (U+0000) or an unpaired UTF-16 surrogate";

interface AuditRow {
	action: string;
	outcome: string;
	organization: string | null;
	workspace: string | null;
	details: { arguments: Record<string, unknown>; error?: { code: string; message: string }; requestId?: string };
}

describe("every MCP tools/call passes the same guards and leaves an audit row", () => {
	let standIn: ProviderStandIn;
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let other: TestWorkspace;
	let memberId: string;
	let viewerId: string;
	const sessions: McpSession[] = [];

	const connect = async (userId: string, organizationId: string | null = workspace.organizationId) => {
		const session = await connectAs(platform, userPrincipal(userId, { organizationId }));
		sessions.push(session);
		return session;
	};
	const query = <T>(sql: string, parameters: unknown[] = []) => platform.orm.em.fork().getConnection().execute<T[]>(sql, parameters);
	const auditOf = (session: McpSession) =>
		query<AuditRow>("select action, outcome, organization, workspace, details from audit_events where details->>'connectionId' = ? order by created_at, id", [session.principal.connectionId]);
	const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");

	beforeAll(async () => {
		standIn = await startProviderStandIn();
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		other = await platform.createWorkspace();
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-guards-0123456789", baseUrl: standIn.baseUrl });
		const password = "correct horse battery";
		memberId = (await createUser(platform.operator(), { email: `member-${Date.now()}@example.com`, password, organizationId: workspace.organizationId, role: "member" })).userId;
		viewerId = (await createUser(platform.operator(), { email: `viewer-${Date.now()}@example.com`, password, organizationId: workspace.organizationId, role: "viewer" })).userId;
	}, 60_000);
	afterAll(async () => {
		for (const session of sessions) await session.close();
		await platform?.stop();
		await standIn?.close();
	});

	it("NUL or a lone surrogate in a tool's arguments is refused before anything runs: no generation, the credential unchanged, no document; the refusal names the fields, is audited with storable arguments, and quotes no SQL", async () => {
		const { workspaceId } = workspace;
		const owner = await connect(workspace.userId);
		await owner.call("create_assistant", { workspaceId, slug: "guarded", name: "Guarded" });
		await owner.call("update_assistant_draft", { workspaceId, slug: "guarded", patch: { model: "model-guarded", systemPrompt: "Hello {{who}}", variables: [{ name: "who", type: "string", required: false, default: "you" }] } });
		await owner.call("create_assistant_version", { workspaceId, slug: "guarded" });
		await owner.call("publish_deployment", { workspaceId, slug: "guarded", version: 1 });
		const source = await owner.call<{ id: string }>("create_knowledge_source", { workspaceId, name: "Guarded", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });
		await platform.services.traces.flush();
		const tracesBefore = (await query<{ count: string }>("select count(*) from traces where workspace = ?", [workspaceId]))[0].count;
		standIn.reset();

		const refusals: [string, Record<string, unknown>, string][] = [
			["execute_assistant", { workspaceId, slug: "guarded", input: "hi\u0000there" }, `input: ${UNSTORABLE}`],
			["execute_assistant", { workspaceId, slug: "guarded", input: "hi", variables: { who: "Ada \ud800" } }, `variables.who: ${UNSTORABLE}`],
			["set_provider_credential", { workspaceId, provider: "openai", apiKey: "sk-replaced-0000", baseUrl: `${standIn.baseUrl}/\u0000` }, `baseUrl: ${UNSTORABLE}`],
			["set_provider_credential", { workspaceId, provider: "openai", apiKey: "sk-replaced-0000", baseUrl: `${standIn.baseUrl}/\udfff` }, `baseUrl: ${UNSTORABLE}`],
			["add_knowledge_text", { workspaceId, sourceId: source.id, filename: "notes.md", text: "a\u0000b" }, `text: ${UNSTORABLE}`],
			["add_knowledge_text", { workspaceId, sourceId: source.id, filename: "notes\ud83d.md", text: "lone high surrogate in the name" }, `filename: ${UNSTORABLE}`],
		];
		for (const [tool, args, field] of refusals) {
			const result = await owner.raw(tool, args);
			expect(result.isError, tool).toBe(true);
			expect(textOf(result), tool).toBe(`VALIDATION_ERROR: Invalid arguments for ${tool}: ${field}`);
		}

		// Nothing ran: no provider call, no trace, the credential's base URL as it was, no document.
		expect(standIn.requests).toHaveLength(0);
		await platform.services.traces.flush();
		expect((await query<{ count: string }>("select count(*) from traces where workspace = ?", [workspaceId]))[0].count).toBe(tracesBefore);
		const { credentials } = await owner.call<{ credentials: { provider: string; baseUrl: string | null; apiKeyHint: string }[] }>("list_provider_credentials", { workspaceId });
		expect(credentials).toEqual([expect.objectContaining({ provider: "openai", baseUrl: standIn.baseUrl, apiKeyHint: "6789" })]);
		expect(await query("select id from knowledge_documents where source_id = ?", [source.id])).toEqual([]);

		const audit = (await auditOf(owner)).filter((row) => row.details.error?.code === "VALIDATION_ERROR");
		expect(audit.map((row) => [row.action, row.outcome, row.organization, row.workspace])).toEqual(
			refusals.map(([tool]) => [`mcp.${tool}`, "failure", workspace.organizationId, workspaceId]),
		);
		// What was refused is on record, the offending characters replaced with U+FFFD; secrets still redacted.
		expect(audit.map((row) => row.details.arguments)).toEqual([
			{ workspaceId, slug: "guarded", input: "hi\ufffdthere" },
			{ workspaceId, slug: "guarded", input: "hi", variables: { who: "Ada \ufffd" } },
			{ workspaceId, provider: "openai", apiKey: "[redacted]", baseUrl: `${standIn.baseUrl}/\ufffd` },
			{ workspaceId, provider: "openai", apiKey: "[redacted]", baseUrl: `${standIn.baseUrl}/\ufffd` },
			{ workspaceId, sourceId: source.id, filename: "notes.md", text: "a\ufffdb" },
			{ workspaceId, sourceId: source.id, filename: "notes\ufffd.md", text: "lone high surrogate in the name" },
		]);
		expect(JSON.stringify(audit)).not.toContain("sk-replaced");
	}, 60_000);

	it("keys of an argument object are checked too, and an argument cut for the audit log mid-pair stays storable", async () => {
		const { workspaceId } = workspace;
		const member = await connect(memberId);
		const refused = await member.raw("execute_assistant", { workspaceId, slug: "guarded", input: "hi", variables: { "wh\u0000o": "Ada" } });
		expect(textOf(refused)).toBe(`VALIDATION_ERROR: Invalid arguments for execute_assistant: variables.wh\u0000o: ${UNSTORABLE}`);
		// 499 letters then an emoji: the audit log cuts long texts at 500 UTF-16 units, between the emoji's two halves.
		const source = await member.call<{ id: string }>("create_knowledge_source", { workspaceId, name: "Long", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });
		const text = `${"a".repeat(499)}😀 and more`;
		expect(await member.call("add_knowledge_text", { workspaceId, sourceId: source.id, filename: "long.md", text })).toMatchObject({ filename: "long.md" });
		const rows = await auditOf(member);
		expect(rows.map((row) => [row.action, row.outcome])).toEqual([
			["mcp.execute_assistant", "failure"],
			["mcp.create_knowledge_source", "success"],
			["mcp.add_knowledge_text", "success"],
		]);
		expect(rows[0].details.arguments).toMatchObject({ variables: { "wh\ufffdo": "Ada" } });
		expect(rows[2].details.arguments.text).toBe(`${"a".repeat(499)}\ufffd… (${text.length} characters)`);
	}, 60_000);

	it("an unexpected failure is INTERNAL_ERROR quoting the request id, never the error's own text, and is audited", async () => {
		const failing = defineTool({
			name: "read_missing_table",
			title: "Fails in the database",
			description: "A tool whose query the database refuses.",
			inputSchema: { workspaceId: z.string() },
			outputSchema: { rows: z.number() },
			annotations: READ_ONLY,
			permission: null,
			run: async (context) => {
				await context.em.getConnection().execute("select secret_column from no_such_table where tenant = 'other'");
				return { rows: 0 };
			},
		});
		const principal = userPrincipal(workspace.userId, { organizationId: workspace.organizationId });
		const server = createMcpServer(createUseCaseContext(platform.services, principal), { requestId: "req_guards_internal" }, [failing]);
		const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
		const client = new Client({ name: "test-client", version: "1.0.0" });
		await server.connect(serverTransport);
		await client.connect(clientTransport);
		const session = new McpSession(client, principal);
		sessions.push(session);

		const result = await session.raw("read_missing_table", { workspaceId: workspace.workspaceId });
		expect(result).toEqual({ isError: true, content: [{ type: "text", text: "INTERNAL_ERROR: The tool failed unexpectedly; try again, and quote request id req_guards_internal if it keeps failing" }] });
		const [row] = await auditOf(session);
		expect(row).toMatchObject({ action: "mcp.read_missing_table", outcome: "failure", organization: workspace.organizationId, details: { requestId: "req_guards_internal", error: { code: "INTERNAL_ERROR" } } });
		expect(JSON.stringify(row.details)).not.toMatch(DATABASE_TEXT);
	}, 30_000);

	it("an unknown tool, arguments that fail the schema and a denied call are tool errors a model can act on, each audited under the organization of the workspace it reached", async () => {
		const { workspaceId, organizationId } = workspace;
		const member = await connect(memberId);
		const viewer = await connect(viewerId);

		const unknown = await member.raw("create_asistant", { workspaceId, slug: "typo", name: "Typo" });
		expect(unknown).toMatchObject({ isError: true, content: [{ type: "text", text: "NOT_FOUND: There is no tool named 'create_asistant'; tools/list names them all" }] });
		const invalid = await member.raw("create_assistant", { workspaceId, slug: 7, description: ["not", "text"] });
		expect(invalid).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "VALIDATION_ERROR: Invalid arguments for create_assistant: slug: Expected string, received number; name: Required; description: Expected string, received array" }],
		});
		const denied = await viewer.raw("create_assistant", { workspaceId, slug: "viewer-made", name: "Viewer made" });
		expect(denied).toMatchObject({ isError: true, content: [{ type: "text", text: "FORBIDDEN: Your role in this organization (viewer) cannot do this; it needs member or above" }] });

		// Organization named by the caller, workspace of their own: the row goes to the workspace's organization.
		await member.call("list_assistants", { workspaceId, organizationId: other.organizationId });
		// Another organization's workspace: not reached, so neither it nor its organization is on the row.
		expect(await member.fail("list_assistants", { workspaceId: other.workspaceId })).toBe("NOT_FOUND: Workspace not found");
		// No workspace named: the connection's organization.
		await member.raw("no_such_tool", {});

		const rows = [...(await auditOf(member)), ...(await auditOf(viewer))];
		expect(rows.map((row) => [row.action, row.outcome, row.details.error?.code ?? null, row.organization, row.workspace])).toEqual([
			["mcp.create_asistant", "failure", "NOT_FOUND", organizationId, workspaceId],
			["mcp.create_assistant", "failure", "VALIDATION_ERROR", organizationId, workspaceId],
			["mcp.list_assistants", "success", null, organizationId, workspaceId],
			["mcp.list_assistants", "failure", "NOT_FOUND", null, null],
			["mcp.no_such_tool", "failure", "NOT_FOUND", organizationId, null],
			["mcp.create_assistant", "denied", "FORBIDDEN", organizationId, workspaceId],
		]);
		expect(rows[1].details.arguments).toEqual({ workspaceId, slug: 7, description: ["not", "text"] });
		// Nothing of the refused calls happened.
		expect((await member.call<{ assistants: unknown[] }>("list_assistants", { workspaceId, includeArchived: true })).assistants).toEqual([expect.objectContaining({ slug: "guarded" })]);
	}, 60_000);

	it("an all-organizations connection files a call under the organization of the workspace it reached, and under none when it named none", async () => {
		const everywhere = await connect(workspace.userId, null);
		await everywhere.call("list_environments", { workspaceId: workspace.workspaceId });
		await everywhere.raw("no_such_tool", {});
		await everywhere.fail("list_members", { organizationId: other.organizationId });
		const rows = await auditOf(everywhere);
		expect(rows.map((row) => [row.action, row.organization, row.workspace])).toEqual([
			["mcp.list_environments", workspace.organizationId, workspace.workspaceId],
			["mcp.no_such_tool", null, null],
			["mcp.list_members", null, null],
		]);
	}, 30_000);

	it("tools that overwrite or change what is served are marked destructive for the client to confirm; only reads are read-only", async () => {
		const session = await connect(workspace.userId);
		const { tools } = await session.client.listTools();
		const annotationsOf = (name: string) => tools.find((tool) => tool.name === name)?.annotations;
		for (const name of ["update_member_role", "set_provider_credential", "publish_deployment", "rollback_deployment", "restore_assistant", "update_assistant_draft"]) {
			expect(annotationsOf(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
		}
		expect(annotationsOf("publish_deployment")?.idempotentHint).toBe(false);
		for (const tool of MCP_TOOLS) {
			const verb = tool.name.split("_")[0];
			if (["update", "set", "delete", "remove", "revoke", "archive", "restore", "publish", "rollback"].includes(verb)) expect(tool.annotations.destructiveHint, tool.name).toBe(true);
			if (["list", "get", "search", "download", "whoami"].includes(verb)) expect(tool.annotations.readOnlyHint, tool.name).toBe(true);
			if (["create", "add"].includes(verb)) expect(tool.annotations.destructiveHint, tool.name).toBe(false);
		}
	});
});
