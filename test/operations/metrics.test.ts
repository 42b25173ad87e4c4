import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { createSource, eventually, searchPath, uploadDocument, waitForDocument } from "../knowledge/knowledge-helpers";
import { connectAs, userPrincipal } from "../mcp/mcp-helpers";
import { deployAssistantWithTools, executeBody, workspaceWithCredential } from "../runtime/runtime-fixtures";
import { moved, parseScrape, type Scrape } from "./metrics-helpers";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";

let platform: TestPlatform;
let standIn: ProviderStandIn;

beforeAll(async () => {
	standIn = await startProviderStandIn();
	platform = await startTestPlatform({ observability: { metricsPort: 0, metricsToken: METRICS_TOKEN, accessLog: false } });
});

afterAll(async () => {
	await platform?.stop();
	await standIn?.close();
});

async function scrape(): Promise<Scrape> {
	const response = await fetch(platform.metricsUrl as string);
	expect(response.status).toBe(200);
	return parseScrape(await response.text());
}

describe("GET /metrics", () => {
	it("moves each counter by exactly what was done: a generation, a stream, a refused request, an upload, a search, an MCP tool call", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		// Knowledge in a workspace without a provider credential: its source embeds with the built-in model.
		const library = await platform.createWorkspace();
		const sourceId = await createSource(platform, library.apiKey);
		// A second workspace limited to one request a minute: its second request is refused.
		const limited = await platform.createWorkspace();
		await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = 1 where id = ?", [limited.workspaceId]);
		const mcp = await connectAs(platform, userPrincipal(workspace.userId, { organizationId: workspace.organizationId }));

		const before = await scrape();

		standIn.script(
			{ kind: "completion", content: "Hello there.", usage: { prompt_tokens: 1000, completion_tokens: 500 } },
			{ kind: "completion", content: ["Hel", "lo"], usage: { prompt_tokens: 10, completion_tokens: 2 } },
		);
		expect((await platform.request("POST", "/runtime/execute", { key: workspace.apiKey, body: executeBody() })).status).toBe(200);
		const streamed = await platform.request("POST", "/runtime/stream", { key: workspace.apiKey, body: executeBody() });
		expect(streamed.status).toBe(200);
		await streamed.text();
		expect((await platform.request("GET", "/knowledge/sources", { key: limited.apiKey })).status).toBe(200);
		expect((await platform.request("GET", "/knowledge/sources", { key: limited.apiKey })).status).toBe(429);
		const document = await uploadDocument(platform, library.apiKey, sourceId, "notes.md", "# Turbines\n\nThe turbine blade was inspected after the storm.");
		expect((await waitForDocument(platform, library.apiKey, sourceId, document.id)).status).toBe("READY");
		expect((await platform.request("GET", searchPath(sourceId, { query: "turbine blade" }), { key: library.apiKey })).status).toBe(200);
		await mcp.call("list_knowledge_sources", { workspaceId: workspace.workspaceId });
		await mcp.fail("no_such_tool", {});

		// The stream's trace (and with it its generation series) is recorded as the generator closes, around the answer's end.
		const after = await eventually(async () => {
			const current = await scrape();
			return moved(before, current, "generations_total", { provider: "openai", model: "gpt-4o-mini", kind: "execute", mode: "stream", outcome: "success" }) === 1 && current;
		}, 5_000, "the streamed generation's series");

		const generation = { provider: "openai", model: "gpt-4o-mini", kind: "execute" };
		expect(moved(before, after, "generations_total", { ...generation, mode: "plain", outcome: "success" })).toBe(1);
		expect(moved(before, after, "generations_total", { ...generation, mode: "stream", outcome: "success" })).toBe(1);
		expect(moved(before, after, "generation_duration_seconds_count", { ...generation, mode: "plain" })).toBe(1);
		expect(moved(before, after, "generation_time_to_first_token_seconds_count", { provider: "openai", model: "gpt-4o-mini", mode: "stream" })).toBe(1);
		expect(moved(before, after, "generation_tokens_total", { provider: "openai", model: "gpt-4o-mini", direction: "input" })).toBe(1010);
		expect(moved(before, after, "generation_tokens_total", { provider: "openai", model: "gpt-4o-mini", direction: "output" })).toBe(502);
		// gpt-4o-mini: 0.15 and 0.6 micro-USD per token, each generation rounded up.
		expect(moved(before, after, "generation_cost_micro_usd_total", { provider: "openai", model: "gpt-4o-mini" })).toBe(Math.ceil(1000 * 0.15 + 500 * 0.6) + Math.ceil(10 * 0.15 + 2 * 0.6));
		expect(moved(before, after, "provider_attempts_total", { provider: "openai" })).toBe(2);

		expect(moved(before, after, "http_requests_total", { route: "/runtime/execute", method: "POST", status: "200" })).toBe(1);
		expect(moved(before, after, "http_requests_total", { route: "/runtime/stream", method: "POST", status: "200" })).toBe(1);
		expect(moved(before, after, "http_requests_total", { route: "/knowledge/sources", method: "GET", status: "429" })).toBe(1);
		expect(moved(before, after, "http_requests_total", { route: "/knowledge/sources/:sourceId/documents/upload", method: "POST", status: "201" })).toBe(1);
		expect(moved(before, after, "http_requests_total", { route: "/knowledge/sources/:sourceId/search", method: "GET", status: "200" })).toBe(1);
		expect(moved(before, after, "http_request_duration_seconds_count", { route: "/runtime/execute", method: "POST" })).toBe(1);
		// Buckets are cumulative: an answer well under two minutes is in the 120 s bucket and in +Inf, and the sum grew by its time.
		const executeDuration = { route: "/runtime/execute", method: "POST" };
		expect(moved(before, after, "http_request_duration_seconds_bucket", { ...executeDuration, le: "120" })).toBe(1);
		expect(moved(before, after, "http_request_duration_seconds_bucket", { ...executeDuration, le: "+Inf" })).toBe(1);
		expect(moved(before, after, "http_request_duration_seconds_sum", executeDuration)).toBeGreaterThan(0);
		expect(moved(before, after, "generation_time_to_first_token_seconds_bucket", { provider: "openai", model: "gpt-4o-mini", mode: "stream", le: "120" })).toBe(1);
		expect(moved(before, after, "quota_refusals_total", { kind: "rate_limit" })).toBe(1);
		expect(moved(before, after, "knowledge_documents_ingested_total", { outcome: "ready" })).toBe(1);
		expect(moved(before, after, "knowledge_ingestion_duration_seconds_count")).toBe(1);
		expect(moved(before, after, "knowledge_searches_total")).toBe(1);
		expect(moved(before, after, "knowledge_search_duration_seconds_count")).toBe(1);
		expect(moved(before, after, "mcp_tool_calls_total", { tool: "list_knowledge_sources", outcome: "success" })).toBe(1);
		expect(moved(before, after, "mcp_tool_calls_total", { tool: "unknown", outcome: "failure" })).toBe(1);

		// Gauges and the process's own series are there; no label holds an id, a key or a raw path.
		expect(after.get("trace_writer_backlog")).toBeGreaterThanOrEqual(0);
		expect(after.get("knowledge_ingestion_queue_depth")).toBe(0);
		expect(after.get('knowledge_index_builder_tasks{state="queued"}')).toBe(0);
		expect(after.get('database_pool_connections{state="used"}')).toBeGreaterThanOrEqual(0);
		expect(after.get("nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
		expect(after.get("process_resident_memory_bytes")).toBeGreaterThan(0);
		expect(after.get("nodejs_active_resources")).toBeGreaterThan(0);
		const labels = [...after.keys()].join("\n");
		for (const secret of [workspace.apiKey, workspace.workspaceId, sourceId, document.id, "no_such_tool"]) expect(labels).not.toContain(secret);
		await mcp.close();
	});

	it("counts an assistant's tool calls by tool kind and outcome: one knowledge search, one call to a tool it does not have", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		// The built-in embedder: the stand-in answers only the model's calls.
		const created = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Notes", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } } });
		const sourceId = ((await created.json()) as { id: string }).id;
		await deployAssistantWithTools(platform, workspace, "librarian", [{ type: "knowledge_search", name: "search_notes", description: "Searches the notes", sourceIds: [sourceId] }]);
		const before = await scrape();
		standIn.script(
			{ kind: "completion", toolCalls: [{ name: "search_notes", arguments: { query: "turbines" } }] },
			{ kind: "completion", toolCalls: [{ name: "made_up_tool", arguments: {} }] },
			{ kind: "completion", content: "Nothing found." },
		);
		const response = await platform.request("POST", "/runtime/assistants/librarian", { key: workspace.apiKey, body: { input: "What about turbines?" } });
		expect(response.status).toBe(200);
		expect(((await response.json()) as { toolCalls: { ok: boolean }[] }).toolCalls.map((call) => call.ok)).toEqual([true, false]);
		const after = await scrape();
		expect(moved(before, after, "assistant_tool_calls_total", { tool_kind: "knowledge_search", outcome: "success" })).toBe(1);
		expect(moved(before, after, "assistant_tool_calls_total", { tool_kind: "unknown", outcome: "failure" })).toBe(1);
		expect([...after.keys()].join("\n")).not.toContain("made_up_tool");
	});

	it("is unreachable on the API's listener without the token, and answers with it", async () => {
		expect((await fetch(`${platform.url}/metrics`)).status).toBe(401);
		const wrong = await fetch(`${platform.url}/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789abcdeX" } });
		expect(wrong.status).toBe(401);
		expect(wrong.headers.get("www-authenticate")).toContain("Bearer");
		expect(((await wrong.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
		const right = await fetch(`${platform.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
		expect(right.status).toBe(200);
		expect(right.headers.get("content-type")).toContain("text/plain");
		expect(await right.text()).toContain("http_requests_total");
	});

	it("the metrics port answers GET /metrics and nothing else", async () => {
		const other = new URL(platform.metricsUrl as string);
		other.pathname = "/runtime/execute";
		expect((await fetch(other, { method: "POST" })).status).toBe(404);
	});

	it("without METRICS_TOKEN or METRICS_PORT there are no metrics to reach", async () => {
		const plain = await startTestPlatform();
		try {
			expect(plain.metricsUrl).toBeUndefined();
			expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
			expect((await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
		} finally {
			await plain.stop();
		}
	});
});

describe("two platforms in one process", () => {
	it("keep counters of their own", async () => {
		const other = await startTestPlatform({ observability: { metricsPort: 0, accessLog: false } });
		try {
			await fetch(`${other.url}/healthz`);
			await fetch(`${other.url}/healthz`);
			const ours = parseScrape(await (await fetch(platform.metricsUrl as string)).text());
			const theirs = parseScrape(await (await fetch(other.metricsUrl as string)).text());
			expect(theirs.get('http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(2);
			expect(ours.get('http_requests_total{method="GET",route="/healthz",status="200"}')).toBeUndefined();
		} finally {
			await other.stop();
		}
	});
});
