import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS, roleAllows } from "../../server/modules/access/permissions";
import { setOrganizationMcpAdministration } from "../../server/modules/oauth/set-organization-mcp-administration";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { createUser } from "../../server/modules/tenancy/create-user";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import type { MemberRole } from "../../server/db/entities";
import type { McpScope } from "../../server/shared/principal";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { waitForDocument } from "../knowledge/knowledge-helpers";
import { connectAs, type McpSession, userPrincipal } from "./mcp-helpers";

describe("MCP control plane tools", () => {
	let standIn: ProviderStandIn;
	let first: TestPlatform;
	let second: TestPlatform;
	let workspace: TestWorkspace;
	let other: TestWorkspace;
	const users = {} as Record<Exclude<MemberRole, "owner">, string>;
	const sessions: McpSession[] = [];

	/** A connection for `userId` bound to `organizationId`, through the same server factory /mcp uses. */
	const connect = async (userId: string, options: { organizationId?: string | null; scopes?: McpScope[] } = {}) => {
		const session = await connectAs(first, userPrincipal(userId, { organizationId: options.organizationId === undefined ? workspace.organizationId : options.organizationId, scopes: options.scopes }));
		sessions.push(session);
		return session;
	};
	const auditOf = (connectionId: string) =>
		first.orm.em.fork().getConnection().execute<{ action: string; outcome: string; details: Record<string, unknown>; workspace: string | null; organization: string | null }[]>(
			"select action, outcome, details, workspace, organization from audit_events where details->>'connectionId' = ? order by created_at, id",
			[connectionId],
		);

	beforeAll(async () => {
		standIn = await startProviderStandIn();
		first = await startTestPlatform();
		second = await startTestPlatform({ databaseUrl: first.databaseUrl });
		workspace = await first.createWorkspace();
		other = await first.createWorkspace();
		await setProviderCredential(first.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-control-plane-0123456789", baseUrl: standIn.baseUrl });
		for (const role of ["admin", "member", "viewer"] as const) {
			const created = await createUser(first.operator(), { email: `${role}-${Date.now()}@example.com`, password: "correct horse battery", organizationId: workspace.organizationId, role });
			users[role] = created.userId;
		}
	}, 60_000);
	afterAll(async () => {
		for (const session of sessions) await session.close();
		await second?.stop();
		await first?.stop();
		await standIn?.close();
	});

	/** The model the second instance serves for `slug` right now, through the runtime API. */
	const servedBySecond = async (slug: string) => {
		const answered = standIn.nextRequest();
		const response = await second.request("POST", `/runtime/assistants/${slug}`, { key: workspace.apiKey, body: { input: "Which model?" } });
		expect(response.status).toBe(200);
		return (await answered).body.model;
	};

	it("an assistant created, versioned, published, rolled back, archived and restored through the tools is served accordingly by another instance", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const { workspaceId } = workspace;
		const slug = "helper";
		expect(await member.call("create_assistant", { workspaceId, slug, name: "Helper", description: "Answers questions" })).toMatchObject({ slug, name: "Helper" });
		for (const model of ["model-one", "model-two"]) {
			const draft = await member.call<{ config: { model: string } }>("update_assistant_draft", { workspaceId, slug, patch: { model, systemPrompt: "Be brief, {{name}}.", variables: [{ name: "name", type: "string", required: false, default: "friend" }] } });
			expect(draft.config.model).toBe(model);
			await member.call("create_assistant_version", { workspaceId, slug, note: model });
		}
		expect((await member.call<{ config: { model: string } }>("get_assistant_draft", { workspaceId, slug })).config.model).toBe("model-two");
		expect((await member.call<{ versions: { version: number }[] }>("list_assistant_versions", { workspaceId, slug })).versions.map((version) => version.version)).toEqual([2, 1]);
		expect(await member.call("get_assistant_version", { workspaceId, slug, version: 1 })).toMatchObject({ version: 1, note: "model-one", config: { model: "model-one" } });

		expect(await member.call("publish_deployment", { workspaceId, slug, version: 1 })).toMatchObject({ environment: "production", version: 1, previousVersion: null });
		expect(await servedBySecond(slug)).toBe("model-one");
		await member.call("publish_deployment", { workspaceId, slug, version: 2 });
		expect(await servedBySecond(slug)).toBe("model-two");
		expect(await member.call("rollback_deployment", { workspaceId, slug })).toMatchObject({ version: 1, previousVersion: 2 });
		expect(await servedBySecond(slug)).toBe("model-one");

		const history = await member.call<{ deployments: { action: string; version: number; previousVersion: number | null; actorUserId: string }[] }>("list_deployments", { workspaceId, slug });
		expect(history.deployments.map(({ action, version, previousVersion }) => [action, version, previousVersion])).toEqual([
			["rollback", 1, 2],
			["publish", 2, 1],
			["publish", 1, null],
		]);
		expect(history.deployments.every((entry) => entry.actorUserId === users.member)).toBe(true);
		const details = await member.call<{ latestVersion: number; deployments: { environment: string; version: number }[] }>("get_assistant", { workspaceId, slug });
		expect(details).toMatchObject({ latestVersion: 2, deployments: [{ environment: "production", version: 1 }] });

		expect(await member.call("update_assistant", { workspaceId, slug, name: "Helpful" })).toMatchObject({ name: "Helpful", archived: false });
		await member.call("archive_assistant", { workspaceId, slug });
		const archived = await second.request("POST", `/runtime/assistants/${slug}`, { key: workspace.apiKey, body: { input: "Still there?" } });
		expect(archived.status).toBe(404);
		expect(((await archived.json()) as { code: string }).code).toBe("DEPLOYMENT_NOT_FOUND");
		expect((await member.call<{ assistants: unknown[] }>("list_assistants", { workspaceId })).assistants).toHaveLength(0);
		expect((await member.call<{ assistants: { slug: string; archived: boolean }[] }>("list_assistants", { workspaceId, includeArchived: true })).assistants).toEqual([
			expect.objectContaining({ slug, archived: true }),
		]);
		await member.call("restore_assistant", { workspaceId, slug });
		expect(await servedBySecond(slug)).toBe("model-one");
	}, 60_000);

	it("execute_assistant and run_playground go through the generation path, traced with the user as caller, readable with list_traces and get_trace", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const { workspaceId } = workspace;
		await member.call("create_assistant", { workspaceId, slug: "runner", name: "Runner" });
		await member.call("update_assistant_draft", { workspaceId, slug: "runner", patch: { model: "model-deployed", systemPrompt: "Hello {{who}}", variables: [{ name: "who", type: "string", required: true }] } });
		await member.call("create_assistant_version", { workspaceId, slug: "runner" });
		await member.call("publish_deployment", { workspaceId, slug: "runner", version: 1 });
		await member.call("update_assistant_draft", { workspaceId, slug: "runner", patch: { model: "model-draft" } });

		standIn.script({ kind: "completion", content: "deployed answer" });
		const deployedRequest = standIn.nextRequest();
		const executed = await member.call<{ message: { content: string }; version: number }>("execute_assistant", { workspaceId, slug: "runner", input: "hi", variables: { who: "Ada" } });
		expect(executed).toMatchObject({ message: { content: "deployed answer" }, version: 1 });
		const sent = (await deployedRequest).body as { model: string; messages: { role: string; content: string }[] };
		expect(sent.model).toBe("model-deployed");
		expect(sent.messages[0]).toEqual({ role: "system", content: "Hello Ada" });

		standIn.script({ kind: "completion", content: "draft answer" });
		const draftRequest = standIn.nextRequest();
		expect(await member.call("run_playground", { workspaceId, slug: "runner", input: "try", variables: { who: "Bob" } })).toMatchObject({ message: { content: "draft answer" }, ranOn: "draft" });
		expect((await draftRequest).body.model).toBe("model-draft");
		const pinnedRequest = standIn.nextRequest();
		expect(await member.call("run_playground", { workspaceId, slug: "runner", input: "try", version: 1, variables: { who: "Bob" } })).toMatchObject({ ranOn: 1 });
		expect((await pinnedRequest).body.model).toBe("model-deployed");

		// Traces are written off the response path: flushed before reading.
		await first.services.traces.flush();
		const listed = await member.call<{ traces: { id: string; kind: string; principalType: string; principalId: string; model: string }[] }>("list_traces", { workspaceId, principalId: users.member });
		expect(listed.traces.map((trace) => [trace.kind, trace.model])).toEqual([
			["playground", "model-deployed"],
			["playground", "model-draft"],
			["assistant", "model-deployed"],
		]);
		expect(listed.traces.every((trace) => trace.principalType === "user")).toBe(true);
		const playgroundOnly = await member.call<{ traces: unknown[] }>("list_traces", { workspaceId, kind: "playground", limit: 1 });
		expect(playgroundOnly.traces).toHaveLength(1);
		const trace = await member.call<{ output: string; input: { messages: { content: string }[] } }>("get_trace", { workspaceId, traceId: listed.traces[2].id });
		expect(trace.output).toBe("deployed answer");
		expect(trace.input.messages[1].content).toBe("hi");
		expect(await member.fail("execute_assistant", { workspaceId, slug: "runner", input: "hi" })).toMatch(/VALIDATION_ERROR.*who/);
	}, 60_000);

	it("environments: created, renamed, published to; production and an environment serving an assistant are kept with a clear error, audited", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const { workspaceId } = workspace;
		await member.call("create_environment", { workspaceId, slug: "staging", name: "Staging" });
		expect(await member.call("update_environment", { workspaceId, slug: "staging", description: "pre-release" })).toMatchObject({ slug: "staging", description: "pre-release" });
		expect((await member.call<{ environments: { slug: string }[] }>("list_environments", { workspaceId })).environments.map((environment) => environment.slug)).toEqual(["production", "staging"]);
		await member.call("create_assistant", { workspaceId, slug: "staged", name: "Staged" });
		await member.call("create_assistant_version", { workspaceId, slug: "staged" });
		await member.call("publish_deployment", { workspaceId, slug: "staged", version: 1, environment: "staging" });

		expect(await member.fail("delete_environment", { workspaceId, slug: "staging" })).toMatch(/^INVALID_REQUEST: .*still serves 'staged'/);
		expect(await member.fail("delete_environment", { workspaceId, slug: "production" })).toMatch(/^INVALID_REQUEST: The production environment cannot be deleted/);
		expect((await member.call<{ environments: unknown[] }>("list_environments", { workspaceId })).environments).toHaveLength(2);
		const audit = await auditOf(member.principal.connectionId);
		expect(audit.filter((row) => row.action === "mcp.delete_environment").map((row) => row.outcome)).toEqual(["failure", "failure"]);
		expect(audit.find((row) => row.action === "mcp.delete_environment")?.details).toMatchObject({ error: { code: "INVALID_REQUEST" }, arguments: { workspaceId, slug: "staging" } });

		// Once the assistant is archived the environment serves nothing and can go.
		await member.call("archive_assistant", { workspaceId, slug: "staged" });
		expect(await member.call("delete_environment", { workspaceId, slug: "staging" })).toEqual({ slug: "staging", deleted: true });
		expect((await member.call<{ environments: unknown[] }>("list_environments", { workspaceId })).environments).toHaveLength(1);
	}, 60_000);

	it("knowledge: a source created, text added through ingestion, searched, downloaded and deleted", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const { workspaceId } = workspace;
		const source = await member.call<{ id: string; embeddingModel: { provider: string } }>("create_knowledge_source", { workspaceId, name: "Policies", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });
		expect(source.embeddingModel.provider).toBe("builtin");
		const text = "# Returns\n\nItems can be returned within 30 days with a receipt.\n";
		const document = await member.call<{ id: string; status: string }>("add_knowledge_text", { workspaceId, sourceId: source.id, filename: "returns.md", text });
		expect(document.status).toBe("PENDING");
		expect(await waitForDocument(first, workspace.apiKey, source.id, document.id)).toMatchObject({ status: "READY" });
		expect((await member.call<{ documents: { id: string; status: string }[] }>("list_knowledge_documents", { workspaceId, sourceId: source.id })).documents).toEqual([
			expect.objectContaining({ id: document.id, status: "READY" }),
		]);
		expect((await member.call<{ sources: { id: string; documentCount: number }[] }>("list_knowledge_sources", { workspaceId })).sources).toContainEqual(expect.objectContaining({ id: source.id, documentCount: 1 }));
		const { results } = await member.call<{ results: { documentId: string; text: string }[] }>("search_knowledge", { workspaceId, sourceId: source.id, query: "how many days to return" });
		expect(results[0]).toMatchObject({ documentId: document.id });
		expect(results[0].text).toContain("30 days");
		expect(await member.call("download_knowledge_document", { workspaceId, sourceId: source.id, documentId: document.id })).toMatchObject({ encoding: "text", content: text, contentType: "text/markdown" });

		expect(await member.call("delete_knowledge_document", { workspaceId, sourceId: source.id, documentId: document.id })).toEqual({ id: document.id, deleted: true });
		expect((await member.call<{ documents: unknown[] }>("list_knowledge_documents", { workspaceId, sourceId: source.id })).documents).toHaveLength(0);
		expect(await member.call("delete_knowledge_source", { workspaceId, sourceId: source.id })).toEqual({ id: source.id, deleted: true });
		expect(await member.fail("list_knowledge_documents", { workspaceId, sourceId: source.id })).toMatch(/^NOT_FOUND/);
	}, 60_000);

	it("knowledge: text past the direct upload's size in UTF-8 is refused naming the field the caller sent, and stores nothing", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const { workspaceId } = workspace;
		const source = await member.call<{ id: string }>("create_knowledge_source", { workspaceId, name: "Glossary" });
		// Two million characters (under the tool's five million) of three bytes each in UTF-8: 6,000,000 bytes.
		const failure = await member.fail("add_knowledge_text", { workspaceId, sourceId: source.id, filename: "glossary.md", text: "語".repeat(2_000_000) });
		expect(failure).toMatch(/^VALIDATION_ERROR: .*text: Is 6000000 bytes in UTF-8; direct uploads take at most 5242880/);
		expect(failure).not.toContain("contentBase64");
		expect((await member.call<{ documents: unknown[] }>("list_knowledge_documents", { workspaceId, sourceId: source.id })).documents).toHaveLength(0);
		expect(await member.call("delete_knowledge_source", { workspaceId, sourceId: source.id })).toEqual({ id: source.id, deleted: true });
	}, 60_000);

	it("administration: members, API keys (secret once, revocation immediate) and provider credentials (last four only, key never audited)", async () => {
		const admin = await connect(users.admin);
		const { workspaceId, organizationId } = workspace;
		const { members } = await admin.call<{ members: { userId: string; role: string }[] }>("list_members", {});
		expect(members.map((member) => member.role).sort()).toEqual(["admin", "member", "owner", "viewer"]);
		expect(await admin.call("update_member_role", { userId: users.viewer, role: "member" })).toEqual({ userId: users.viewer, role: "member" });
		expect(await admin.fail("update_member_role", { userId: users.admin, role: "owner" })).toMatch(/^FORBIDDEN: Only an owner/);
		expect(await admin.call("remove_member", { organizationId, userId: users.viewer })).toEqual({ userId: users.viewer, removed: true });
		expect((await admin.call<{ members: unknown[] }>("list_members", {})).members).toHaveLength(3);

		const created = await admin.call<{ id: string; key: string; scopes: string[] }>("create_api_key", { workspaceId, name: "CI", scopes: ["knowledge:read"] });
		expect(created.key).toMatch(/^csk_live_/);
		expect((await first.request("GET", "/knowledge/sources", { key: created.key })).status).toBe(200);
		const { apiKeys } = await admin.call<{ apiKeys: Record<string, unknown>[] }>("list_api_keys", { workspaceId });
		const listed = apiKeys.find((key) => key.id === created.id);
		expect(listed).toMatchObject({ name: "CI", scopes: ["knowledge:read"], revokedAt: null });
		expect(JSON.stringify(apiKeys)).not.toContain(created.key);
		await admin.call("revoke_api_key", { workspaceId, apiKeyId: created.id });
		const refused = await second.request("GET", "/knowledge/sources", { key: created.key });
		expect(refused.status).toBe(401);

		const secret = "sk-mistral-secret-value-WXYZ";
		expect(await admin.call("set_provider_credential", { workspaceId, provider: "mistral", apiKey: secret })).toMatchObject({ provider: "mistral", apiKeyHint: "WXYZ" });
		const { credentials } = await admin.call<{ credentials: { provider: string; apiKeyHint: string; baseUrl: string | null }[] }>("list_provider_credentials", { workspaceId });
		expect(credentials.map(({ provider, apiKeyHint }) => [provider, apiKeyHint])).toEqual([
			["mistral", "WXYZ"],
			["openai", "6789"],
		]);
		expect(await admin.call("delete_provider_credential", { workspaceId, provider: "mistral" })).toEqual({ provider: "mistral", deleted: true });
		expect((await admin.call<{ credentials: unknown[] }>("list_provider_credentials", { workspaceId })).credentials).toHaveLength(1);
		expect(await admin.call("test_provider_credential", { workspaceId, provider: "openai" })).toMatchObject({ provider: "openai", works: true });

		const invited = await admin.call<{ id: string; url: string }>("create_invitation", { email: "Invited-Over-MCP@example.com", role: "member" });
		expect(invited).toMatchObject({ email: "invited-over-mcp@example.com", role: "member", status: "pending", url: expect.stringMatching(/\/invitations\/[\w-]{43}$/) });
		expect(invited).not.toHaveProperty("token");
		expect(await admin.fail("create_invitation", { email: "boss@example.com", role: "owner" })).toBe("FORBIDDEN: Only an owner invites an owner");
		expect((await admin.call<{ invitations: { id: string }[] }>("list_invitations", {})).invitations.map((found) => found.id)).toEqual([invited.id]);
		expect(await admin.call("revoke_invitation", { invitationId: invited.id })).toMatchObject({ id: invited.id });
		expect((await admin.call<{ invitations: unknown[] }>("list_invitations", {})).invitations).toEqual([]);

		const audit = await auditOf(admin.principal.connectionId);
		expect(JSON.stringify(audit)).not.toContain(invited.url);
		const stored = audit.find((row) => row.action === "mcp.set_provider_credential");
		expect(stored?.details.arguments).toEqual({ workspaceId, provider: "mistral", apiKey: "[redacted]" });
		expect(JSON.stringify(audit)).not.toContain(secret);
		expect(JSON.stringify(audit)).not.toContain(created.key);
	}, 60_000);

	it("the last owner is kept, and an organization with administration over MCP disabled refuses every admin tool, audited as denied", async () => {
		const owner = await connect(workspace.userId);
		expect(await owner.fail("update_member_role", { userId: workspace.userId, role: "admin" })).toMatch(/^INVALID_REQUEST: Cannot demote the organization's last owner/);
		expect(await owner.fail("remove_member", { userId: workspace.userId })).toMatch(/^INVALID_REQUEST: Cannot remove the organization's last owner/);

		await setOrganizationMcpAdministration(first.operator(), { organizationId: workspace.organizationId, enabled: false });
		// A new context, as /mcp builds for every request (a context's EntityManager keeps what it read).
		const disabled = await connect(workspace.userId);
		try {
			expect(await disabled.fail("list_members", {})).toBe("FORBIDDEN: An owner of this organization has disabled administration over MCP");
			expect(await disabled.fail("create_api_key", { workspaceId: workspace.workspaceId, name: "blocked" })).toMatch(/disabled administration over MCP/);
			// Other tools still work.
			expect((await owner.call<{ environments: unknown[] }>("list_environments", { workspaceId: workspace.workspaceId })).environments.length).toBeGreaterThan(0);
			const audit = await auditOf(disabled.principal.connectionId);
			expect(audit.filter((row) => row.action === "mcp.list_members" || row.action === "mcp.create_api_key").map((row) => row.outcome)).toEqual(["denied", "denied"]);
		} finally {
			await setOrganizationMcpAdministration(first.operator(), { organizationId: workspace.organizationId, enabled: true });
		}
		expect((await (await connect(workspace.userId)).call<{ members: unknown[] }>("list_members", {})).members.length).toBeGreaterThan(0);
	}, 60_000);

	it("identity tools: organizations and workspaces of the binding only, all of them for an all-organizations connection", async () => {
		const bound = await connect(workspace.userId, { scopes: ["mcp:read"] });
		expect((await bound.call<{ organizations: { id: string; role: string }[] }>("list_organizations")).organizations).toEqual([
			expect.objectContaining({ id: workspace.organizationId, role: "owner", mcpAdministrationDisabled: false }),
		]);
		expect((await bound.call<{ workspaces: { id: string }[] }>("list_workspaces", {})).workspaces.map((found) => found.id)).toEqual([workspace.workspaceId]);
		expect(await bound.fail("list_workspaces", { organizationId: other.organizationId })).toMatch(/^NOT_FOUND/);

		const everywhere = await connect(other.userId, { organizationId: null, scopes: ["mcp:read"] });
		expect((await everywhere.call<{ organizations: { id: string }[] }>("list_organizations")).organizations.map((organization) => organization.id)).toEqual([other.organizationId]);
		expect(await everywhere.fail("list_workspaces", {})).toMatch(/^VALIDATION_ERROR: .*organizationId/);
		expect((await everywhere.call<{ workspaces: { id: string }[] }>("list_workspaces", { organizationId: other.organizationId })).workspaces.map((found) => found.id)).toEqual([other.workspaceId]);
		// A member of one organization only: the other one is not found, even for an all-organizations connection.
		expect(await everywhere.fail("list_environments", { workspaceId: workspace.workspaceId })).toMatch(/^NOT_FOUND: Workspace not found/);
	});

	/** Arguments that pass every tool's schema; denied calls never reach the ids. */
	const SAMPLE_ARGUMENTS: Record<string, Record<string, unknown>> = {
		list_workspaces: {},
		list_assistants: {},
		get_assistant: { slug: "helper" },
		get_assistant_draft: { slug: "helper" },
		list_assistant_versions: { slug: "helper" },
		get_assistant_version: { slug: "helper", version: 1 },
		list_deployments: { slug: "helper" },
		list_environments: {},
		create_assistant: { slug: "denied", name: "Denied" },
		update_assistant: { slug: "helper", name: "Renamed" },
		archive_assistant: { slug: "helper" },
		restore_assistant: { slug: "helper" },
		update_assistant_draft: { slug: "helper", patch: { model: "denied-model" } },
		create_assistant_version: { slug: "helper" },
		publish_deployment: { slug: "helper", version: 2 },
		rollback_deployment: { slug: "helper" },
		create_environment: { slug: "denied", name: "Denied" },
		update_environment: { slug: "production", name: "Renamed" },
		delete_environment: { slug: "production" },
		execute_assistant: { slug: "helper", input: "hi" },
		run_playground: { slug: "helper", input: "hi" },
		list_knowledge_sources: {},
		list_knowledge_documents: { sourceId: "ks_missing" },
		search_knowledge: { sourceId: "ks_missing", query: "anything" },
		download_knowledge_document: { sourceId: "ks_missing", documentId: "doc_missing" },
		create_knowledge_source: { name: "Denied" },
		add_knowledge_text: { sourceId: "ks_missing", filename: "denied.md", text: "denied" },
		delete_knowledge_source: { sourceId: "ks_missing" },
		delete_knowledge_document: { sourceId: "ks_missing", documentId: "doc_missing" },
		list_traces: {},
		get_trace: { traceId: "trace_missing" },
		list_members: {},
		update_member_role: { userId: "usr_missing", role: "viewer" },
		remove_member: { userId: "usr_missing" },
		list_api_keys: {},
		create_api_key: { name: "Denied" },
		revoke_api_key: { apiKeyId: "key_missing" },
		list_provider_credentials: {},
		set_provider_credential: { provider: "mistral", apiKey: "sk-denied-0000" },
		delete_provider_credential: { provider: "openai" },
		test_provider_credential: { provider: "openai" },
		list_secrets: {},
		set_secret: { name: "DENIED_TOKEN", value: "denied-0000" },
		delete_secret: { name: "WEATHER_TOKEN" },
		list_invitations: {},
		create_invitation: { email: "denied@example.com", role: "viewer" },
		revoke_invitation: { invitationId: "inv_missing" },
		list_evaluation_datasets: {},
		get_evaluation_dataset: { datasetId: "evds_missing" },
		create_evaluation_dataset: { name: "Denied" },
		delete_evaluation_dataset: { datasetId: "evds_missing" },
		add_evaluation_case: { datasetId: "evds_missing", input: "hi", scorers: [{ type: "contains", value: "hi" }] },
		delete_evaluation_case: { caseId: "evcase_missing" },
		run_evaluation: { datasetId: "evds_missing", target: { kind: "draft", assistantSlug: "helper" } },
		cancel_evaluation_run: { runId: "evrun_missing" },
		get_evaluation_run: { runId: "evrun_missing" },
		list_evaluation_runs: {},
	};
	const guarded = MCP_TOOLS.filter((tool) => tool.permission !== null);
	const argumentsFor = (name: string, workspaceId: string, organizationId: string) => {
		const tool = MCP_TOOLS.find((candidate) => candidate.name === name);
		return { ...SAMPLE_ARGUMENTS[name], ...("workspaceId" in (tool?.inputSchema ?? {}) ? { workspaceId } : { organizationId }) };
	};

	it("every guarded tool has a denied-path check below", () => {
		expect(guarded.map((tool) => tool.name).filter((name) => !(name in SAMPLE_ARGUMENTS))).toEqual([]);
	});

	it("every tool is refused, with nothing changed and a denied audit row, to a connection without its scope", async () => {
		const readOnly = await connect(workspace.userId, { scopes: ["mcp:read"] });
		const writeOnly = await connect(workspace.userId, { scopes: ["mcp:read", "mcp:write"] });
		const refused: string[] = [];
		for (const tool of guarded) {
			const rule = PERMISSIONS[tool.permission as keyof typeof PERMISSIONS];
			if (rule.mcpScope === "mcp:read") continue;
			const session = rule.mcpScope === "mcp:admin" ? writeOnly : readOnly;
			const message = await session.fail(tool.name, argumentsFor(tool.name, workspace.workspaceId, workspace.organizationId));
			expect(message, tool.name).toBe(`FORBIDDEN: This connection was not granted '${rule.mcpScope}'; reconnect the application and approve that scope`);
			refused.push(tool.name);
		}
		expect(refused).toContain("create_assistant");
		expect(refused).toContain("list_members");
		const audit = [...(await auditOf(readOnly.principal.connectionId)), ...(await auditOf(writeOnly.principal.connectionId))];
		expect(audit.map((row) => row.action.slice(4)).sort()).toEqual([...refused].sort());
		expect(audit.every((row) => row.outcome === "denied" && row.organization === workspace.organizationId)).toBe(true);
		expect((await readOnly.call<{ assistants: { slug: string }[] }>("list_assistants", { workspaceId: workspace.workspaceId, includeArchived: true })).assistants.map((found) => found.slug)).not.toContain("denied");
	}, 120_000);

	it("every tool above a viewer's role is refused to a viewer, whatever the token's scopes", async () => {
		const { userId: viewerId } = await createUser(first.operator(), { email: `viewer2-${Date.now()}@example.com`, password: "correct horse battery", organizationId: workspace.organizationId, role: "viewer" });
		const viewer = await connect(viewerId);
		let refused = 0;
		for (const tool of guarded) {
			const rule = PERMISSIONS[tool.permission as keyof typeof PERMISSIONS];
			const args = argumentsFor(tool.name, workspace.workspaceId, workspace.organizationId);
			if (roleAllows("viewer", rule.minimumRole)) continue;
			expect(await viewer.fail(tool.name, args), tool.name).toBe(`FORBIDDEN: Your role in this organization (viewer) cannot do this; it needs ${rule.minimumRole} or above`);
			refused += 1;
		}
		expect(refused).toBeGreaterThan(20);
	}, 120_000);

	it("every tool is refused for a workspace or organization of another organization, as not found", async () => {
		const stranger = await connect(other.userId, { organizationId: other.organizationId });
		for (const tool of guarded) {
			const message = await stranger.fail(tool.name, argumentsFor(tool.name, workspace.workspaceId, workspace.organizationId));
			expect(message, tool.name).toMatch(/^NOT_FOUND: (Workspace|Organization) not found$/);
		}
	}, 120_000);

	it("schema violations are tool errors naming the argument", async () => {
		const member = await connect(users.member, { scopes: ["mcp:read", "mcp:write"] });
		const result = await member.raw("publish_deployment", { workspaceId: workspace.workspaceId, slug: "helper", version: "two" });
		expect(result.isError).toBe(true);
		expect(JSON.stringify(result.content)).toMatch(/version/);
	});
});
