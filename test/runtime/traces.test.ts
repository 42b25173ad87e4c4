import { describe, expect, it } from "vitest";
import { type ProviderStandIn } from "../helpers/provider-stand-in";
import { type TestPlatform } from "../helpers/platform";
import { GENERATION_SURFACES } from "./generation-surfaces";
import { workspaceWithCredential, useRuntimeTestbed } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

type TraceRow = Record<string, unknown>;
async function tracesOf(workspaceId: string): Promise<TraceRow[]> {
	await platform.services.traces.flush();
	return platform.orm.em.fork().getConnection().execute("select * from traces where workspace = ? order by created_at", [workspaceId]);
}

describe.each(GENERATION_SURFACES)("traces of generations through $name", (surface) => {
	it("records a generation with content, usage, cost, latency and its principal", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "Traced", usage: { prompt_tokens: 1000, completion_tokens: 500 }, delayMs: 80 });
		const started = Date.now();
		expect((await platform.request("POST", surface.path, { key: apiKey, body: surface.body() })).status).toBe(200);
		const elapsed = Date.now() - started;
		const [trace] = await tracesOf(workspaceId);
		expect(trace).toMatchObject({
			kind: "execute",
			streamed: false,
			provider: "openai",
			model: "gpt-4o-mini",
			output: "Traced",
			input_tokens: 1000,
			output_tokens: 500,
			total_tokens: 1500,
			finish_reason: "stop",
			error_code: null,
		});
		// gpt-4o-mini: $0.15 and $0.60 per million tokens.
		expect(Number(trace.cost_micro_usd)).toBe(150 + 300);
		expect(trace.input).toMatchObject({ messages: [{ role: "user", content: "Say hello." }] });
		expect(trace.api_key).toMatch(/^key_/);
		expect(trace).toMatchObject({ principal_type: "api_key", principal_id: trace.api_key });
		// The provider took 80 ms: the latency covers it and is no more than the caller waited.
		expect(trace.latency_ms).toBeGreaterThanOrEqual(80);
		expect(trace.latency_ms).toBeLessThanOrEqual(elapsed);
	});

	it("records time to first token for streams, and failures with their code", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["a", "b"], delayMs: 120 }, { kind: "error", status: 401 });
		await (await platform.request("POST", surface.streamPath, { key: apiKey, body: surface.body({ stream: true }) })).text();
		await (await platform.request("POST", surface.path, { key: apiKey, body: surface.body() })).text();
		const [streamed, failed] = await tracesOf(workspaceId);
		expect(streamed).toMatchObject({ streamed: true, output: "ab", finish_reason: "stop" });
		expect(streamed.time_to_first_token_ms).toBeGreaterThanOrEqual(100);
		expect(failed).toMatchObject({ error_code: "INVALID_REQUEST", finish_reason: "error" });
	});

	it("keeps metadata but not content when the workspace switched content storage off", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set store_trace_content = false where id = ?", [workspaceId]);
		await (await platform.request("POST", surface.path, { key: apiKey, body: surface.body() })).text();
		const [trace] = await tracesOf(workspaceId);
		expect(trace.input).toBeNull();
		expect(trace.output).toBeNull();
		expect(trace.total_tokens).toBeGreaterThan(0);
	});
});
