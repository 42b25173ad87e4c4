import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEgressAllowList } from "../../server/egress/allow-list";
import { Egress } from "../../server/egress/egress";
import { Cancellation } from "../../server/providers/cancellation";
import { createProviderAdapter } from "../../server/providers/create-provider-adapter";
import type { GenerationRequest, ProviderStreamEvent } from "../../server/providers/types";
import { UpstreamHttp } from "../../server/providers/upstream-http";
import { type Dialect, type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";

/**
 * Tool calling at the provider level, against the stand-in speaking each real API's wire format:
 * the tools offered and the tool messages sent back, the calls read from a completion and
 * assembled from a stream (OpenAI's per-index fragments, Mistral's whole calls).
 */
const egress = new Egress({ allowList: parseEgressAllowList("127.0.0.1") });
const upstream = new UpstreamHttp(egress);
const standIns = new Map<Dialect, ProviderStandIn>();

beforeAll(async () => {
	standIns.set("openai", await startProviderStandIn({ dialect: "openai" }));
	standIns.set("mistral", await startProviderStandIn({ dialect: "mistral" }));
});
afterAll(async () => {
	for (const standIn of standIns.values()) await standIn.close();
	await egress.close();
});

const weather = { name: "get_weather", description: "Current weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

const request: GenerationRequest = {
	model: "test-model",
	messages: [
		{ role: "user", content: "Weather in Paris and Lyon?" },
		{ role: "assistant", content: "", toolCalls: [{ id: "call_prev", name: "get_weather", arguments: '{"city":"Nice"}' }] },
		{ role: "tool", toolCallId: "call_prev", name: "get_weather", content: '{"temp":21}' },
	],
	tools: [weather],
	toolChoice: "auto",
};

const cases: { providerName: "openai" | "openai-compatible" | "mistral"; dialect: Dialect }[] = [
	{ providerName: "openai", dialect: "openai" },
	{ providerName: "openai-compatible", dialect: "openai" },
	{ providerName: "mistral", dialect: "mistral" },
];

async function adapterFor(providerName: (typeof cases)[number]["providerName"], dialect: Dialect) {
	return createProviderAdapter(providerName, { apiKey: "sk-test", baseUrl: standIns.get(dialect)!.baseUrl }, upstream);
}

describe.each(cases)("$providerName tool calling", ({ providerName, dialect }) => {
	it("offers the tools, sends tool messages back in the API's shape and reads the calls of a completion", async () => {
		const standIn = standIns.get(dialect)!;
		standIn.reset();
		standIn.script({ kind: "completion", toolCalls: [{ id: "call_a", name: "get_weather", arguments: { city: "Paris" } }, { id: "call_b", name: "get_weather", arguments: { city: "Lyon" } }] });
		const adapter = await adapterFor(providerName, dialect);
		const output = await adapter.generate(request, new Cancellation());
		expect(output.finishReason).toBe("tool_calls");
		expect(output.content).toBe("");
		expect(output.toolCalls).toEqual([
			{ id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
			{ id: "call_b", name: "get_weather", arguments: '{"city":"Lyon"}' },
		]);
		const sent = standIn.requests[0]!.body;
		expect(sent.tools).toEqual([{ type: "function", function: weather }]);
		expect(sent.tool_choice).toBe("auto");
		const messages = sent.messages as Record<string, unknown>[];
		expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_prev", type: "function", function: { name: "get_weather", arguments: '{"city":"Nice"}' } }] });
		expect(messages[2]).toMatchObject({ role: "tool", tool_call_id: "call_prev", content: '{"temp":21}' });
	});

	it("assembles streamed tool calls and yields each whole, after the text and before usage and finish", async () => {
		const standIn = standIns.get(dialect)!;
		standIn.reset();
		const longArguments = { city: "Saint-Rémy-de-Provence", units: "metric", note: "a long argument split over many chunks" };
		standIn.script({ kind: "completion", content: ["Let me ", "check."], toolCalls: [{ name: "get_weather", arguments: longArguments }, { name: "get_weather", arguments: { city: "Lyon" } }] });
		const adapter = await adapterFor(providerName, dialect);
		const events: ProviderStreamEvent[] = [];
		for await (const event of adapter.stream(request, new Cancellation())) events.push(event);
		expect(events.map((event) => event.type)).toEqual(["delta", "delta", "tool_call", "tool_call", "usage", "finish"]);
		const calls = events.filter((event) => event.type === "tool_call");
		expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
			["get_weather", longArguments],
			["get_weather", { city: "Lyon" }],
		]);
		expect(new Set(calls.map((call) => call.id)).size).toBe(2);
		expect(events.at(-1)).toEqual({ type: "finish", finishReason: "tool_calls" });
	});

	it("asks for no tools when none are offered", async () => {
		const standIn = standIns.get(dialect)!;
		standIn.reset();
		standIn.script({ kind: "completion", content: "plain" });
		const adapter = await adapterFor(providerName, dialect);
		const output = await adapter.generate({ model: "m", messages: [{ role: "user", content: "hi" }] }, new Cancellation());
		expect(output).toMatchObject({ content: "plain", finishReason: "stop", toolCalls: [] });
		expect(standIn.requests[0]!.body).not.toHaveProperty("tools");
		expect(standIn.requests[0]!.body).not.toHaveProperty("tool_choice");
	});
});

describe("OpenAI stream fragments", () => {
	it("sends each call's id and name first and its arguments in pieces, keyed by index", async () => {
		const standIn = standIns.get("openai")!;
		standIn.reset();
		standIn.script({ kind: "completion", toolCalls: [{ name: "get_weather", arguments: { city: "Paris, France" } }] });
		const response = await fetch(`${standIn.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [], stream: true }) });
		const chunks = (await response.text())
			.split("\n\n")
			.filter((frame) => frame.startsWith("data: {"))
			.map((frame) => JSON.parse(frame.slice(6)) as { choices: { delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments?: string } }[] } }[] });
		const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
		expect(fragments.length).toBeGreaterThan(2);
		expect(fragments[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), function: { name: "get_weather", arguments: "" } });
		expect(fragments.slice(1).every((fragment) => fragment.id === undefined && fragment.function.name === undefined)).toBe(true);
	});
});
