import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db/orm";
import type { GenerationOutcome } from "../../server/modules/runtime/run-generation";
import { RequestQuotas } from "../../server/modules/quotas/consume-request-quota";
import { TraceWriter } from "../../server/modules/traces/trace-writer";
import { newId } from "../../server/shared/ids";
import { createLogger } from "../../server/shared/logger";
import { OPERATOR } from "../../server/shared/principal";
import { parseSseFrames, type ProviderStandIn } from "../helpers/provider-stand-in";
import type { TestPlatform } from "../helpers/platform";
import { executeBody, useRuntimeTestbed, workspaceWithCredential } from "./runtime-fixtures";

let platform: TestPlatform;
let standIn: ProviderStandIn;

useRuntimeTestbed((started) => ({ platform, standIn } = started));

const query = <T = Record<string, unknown>>(sql: string, parameters: unknown[] = []) => platform.orm.em.fork().getConnection().execute<T[]>(sql, parameters);

async function tracesOf(workspaceId: string) {
	await platform.services.traces.flush();
	return query("select * from traces where workspace = ? order by created_at", [workspaceId]);
}

async function spendOf(workspaceId: string): Promise<number> {
	const [row] = await query<{ spent: string | null }>("select sum(cost_micro_usd) as spent from workspace_monthly_spend where workspace = ?", [workspaceId]);
	return Number(row?.spent ?? 0);
}

/** Log lines kept in memory. */
function capturingLogger() {
	const lines: { level: string; message: string; [key: string]: unknown }[] = [];
	const write = (level: string) => (message: string, context?: Record<string, unknown>) => void lines.push({ ...context, level, message });
	return { lines, logger: { ...createLogger("silent"), debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") } };
}

/** A finished generation as the runtime reports it, for workspaces that need not exist. */
function outcomeFor(workspaceId: string, overrides: { content?: string; outputTokens?: number } = {}): GenerationOutcome {
	return {
		traceId: newId("trace"),
		input: {
			origin: { workspaceId, principal: OPERATOR },
			providerName: "openai",
			model: "gpt-4o-mini",
			messages: [{ role: "user", content: overrides.content ?? "Say hello." }],
			config: {},
		},
		streamed: false,
		startedAt: Date.now(),
		latencyMs: 5,
		timeToFirstTokenMs: 5,
		output: "Hello",
		// gpt-4o-mini: 0.6 µUSD per output token.
		usage: { inputTokens: 0, outputTokens: overrides.outputTokens ?? 100, totalTokens: overrides.outputTokens ?? 100 },
		finishReason: "stop",
		error: null,
		attempts: 1,
	};
}

describe("provider output the database cannot store", () => {
	it("is cleaned before the client and the trace see it: NUL removed, unpaired surrogates replaced", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: "a\u0000b\ud800c 😀" });
		const response = await platform.request("POST", "/runtime/execute", { key: apiKey, body: executeBody() });
		expect(response.status).toBe(200);
		expect((await response.json()).message.content).toBe("ab\ufffdc 😀");
		const [trace] = await tracesOf(workspaceId);
		expect(trace.output).toBe("ab\ufffdc 😀");
	});

	it("in a stream, keeps a surrogate pair split across two deltas and replaces a lone one", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "completion", content: ["x\ud83d", "\ude00y\u0000", "z\udbff"] });
		const response = await platform.request("POST", "/runtime/stream", { key: apiKey, body: executeBody() });
		const frames = parseSseFrames(await response.text());
		const text = frames
			.filter((frame) => frame.event === "delta")
			.map((frame) => (frame.data as { content: string }).content)
			.join("");
		expect(text).toBe("x😀yz\ufffd");
		const [trace] = await tracesOf(workspaceId);
		expect(frames.at(-1)).toEqual({ event: "done", data: { finishReason: "stop", traceId: trace.id } });
		expect(trace.output).toBe("x😀yz\ufffd");
	});

	it("in a provider's error message: the failure is still traced", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 400, message: "model\u0000 \udc00 unknown" });
		const response = await platform.request("POST", "/runtime/execute", { key: apiKey, body: executeBody({ config: { maxRetries: 0 } }) });
		expect(response.status).toBe(400);
		const [trace] = await tracesOf(workspaceId);
		expect(trace.error_code).toBe("INVALID_REQUEST");
		expect(String(trace.error_message)).not.toMatch(/\u0000/);
		expect(String(trace.error_message)).toContain("model \ufffd unknown");
	});

	it("with a spend quota of 50 µUSD, repeated requests stop at the quota and every cost is recorded", async () => {
		const { apiKey, workspaceId } = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await query("update workspaces set monthly_spend_quota_micro_usd = 50 where id = ?", [workspaceId]);
		// 10 x 0.15 + 39 x 0.6 = 24.9, rounded up: 25 µUSD a generation, with text PostgreSQL refuses.
		standIn.fallback = { kind: "completion", content: "poison\u0000\ud800", usage: { prompt_tokens: 10, completion_tokens: 39 } };
		try {
			const statuses: number[] = [];
			// No flush in between: the quota must hold at the pace of a client that just retries.
			for (let index = 0; index < 6; index++) statuses.push((await platform.request("POST", "/runtime/execute", { key: apiKey, body: executeBody() })).status);
			expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
			expect(standIn.requests).toHaveLength(2);
			expect(await tracesOf(workspaceId)).toHaveLength(2);
			expect(await spendOf(workspaceId)).toBe(50);
		} finally {
			standIn.fallback = { kind: "completion", content: "Hello from the stand-in" };
		}
	});
});

describe("a trace batch with a row the database refuses", () => {
	it("still records every other workspace's traces and spend; the refused row is logged by id and its spend counted", async () => {
		const { lines, logger } = capturingLogger();
		const quotas = new RequestQuotas({ rateLimitPerMinute: 0, monthlySpendQuotaMicroUsd: null });
		const writer = new TraceWriter(() => platform.orm.em.fork(), logger, quotas);
		const [first, poisoned, last] = ["ws_batch_first", "ws_batch_poisoned", "ws_batch_last"].map((prefix) => `${prefix}_${Date.now()}`);
		writer.record(outcomeFor(first, { outputTokens: 100 }));
		// Forced past the contract: a NUL in the input, which jsonb refuses.
		writer.record(outcomeFor(poisoned, { content: "bad\u0000input", outputTokens: 200 }));
		writer.record(outcomeFor(last, { outputTokens: 300 }));
		await writer.close();

		expect(await query("select workspace from traces where workspace in (?, ?, ?) order by workspace", [first, poisoned, last])).toEqual([{ workspace: first }, { workspace: last }]);
		expect(await spendOf(first)).toBe(60);
		expect(await spendOf(poisoned)).toBe(120);
		expect(await spendOf(last)).toBe(180);
		const refused = lines.filter((line) => line.level === "error");
		expect(refused).toHaveLength(1);
		expect(refused[0]).toMatchObject({ workspaceId: poisoned, traceId: expect.stringMatching(/^trace_/) });
		expect(lines.some((line) => line.level === "warn" && line.message.includes("one by one"))).toBe(true);
	});

	it("keeps a batch (traces and spend) written while the database is unreachable, and writes it with a later flush", async () => {
		const { lines, logger } = capturingLogger();
		const unreachable = await openDatabase(platform.databaseUrl, { migrate: false });
		await unreachable.close();
		let database = unreachable;
		const writer = new TraceWriter(() => database.em.fork(), logger, new RequestQuotas({ rateLimitPerMinute: 0, monthlySpendQuotaMicroUsd: null }));
		const workspaceId = `ws_outage_${Date.now()}`;
		writer.record(outcomeFor(workspaceId, { outputTokens: 50 }));
		await writer.flush();
		expect(lines.filter((line) => line.level === "error").map((line) => line.message)).toContain("traces not written yet; kept to write again");
		expect(writer.backlog).toBe(1);
		expect(await spendOf(workspaceId)).toBe(0);

		database = platform.orm;
		await writer.close();
		expect(await spendOf(workspaceId)).toBe(30);
	});
});
