import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AssistantTool } from "../../contract/inputs/assistant-tools";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { type RunningPlatform, startPlatform } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { getTrace } from "../../server/modules/traces/get-trace";
import { setSecret } from "../../server/modules/workspace-secrets/set-secret";
import type { Logger } from "../../server/shared/logger";
import { listenOnLoopback, type LoopbackServer } from "../helpers/loopback-server";
import { startTestPlatform, TEST_EGRESS, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { parseSseFrames, type ProviderStandIn, type RecordedRequest, startProviderStandIn } from "../helpers/provider-stand-in";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";

/**
 * Assistants' tools end to end: a real server, the stand-in provider asking for tool calls, a local
 * HTTP API (allowed through EGRESS_ALLOW_HOSTS as 127.0.0.1, like every test's local servers) and
 * one on 127.0.0.2, which the policy does not allow and which must never be reached.
 */
const SECRET = "wx-SECRET-9f8e7d6c5b4a";
const logLines: string[] = [];
const capturingLogger: Logger = {
	debug: (message, context) => logLines.push(JSON.stringify({ message, context })),
	info: (message, context) => logLines.push(JSON.stringify({ message, context })),
	warn: (message, context) => logLines.push(JSON.stringify({ message, context })),
	error: (message, context) => logLines.push(JSON.stringify({ message, context }, (_, value) => (value instanceof Error ? String(value) : value))),
};

interface ApiRequest {
	method: string;
	url: string;
	headers: IncomingMessage["headers"];
	body: string;
	closedEarly: boolean;
}

/** A local HTTP API: records requests; `answer` decides the reply (a hang keeps the request open). */
async function startApi(host = "127.0.0.1") {
	const requests: ApiRequest[] = [];
	let connections = 0;
	const api = {
		requests,
		get connections() {
			return connections;
		},
		answer: (request: ApiRequest): { status: number; body: string; headers?: Record<string, string> } | "hang" => ({ status: 200, body: JSON.stringify({ echo: request.headers.authorization }) }),
		origin: "",
		close: async () => {},
	};
	const server: Server = createServer(async (incoming, response) => {
		let body = "";
		for await (const chunk of incoming) body += String(chunk);
		const recorded: ApiRequest = { method: incoming.method ?? "", url: incoming.url ?? "", headers: incoming.headers, body, closedEarly: false };
		requests.push(recorded);
		response.once("close", () => {
			if (!response.writableFinished) recorded.closedEarly = true;
		});
		const answer = api.answer(recorded);
		if (answer === "hang") return;
		response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
		response.end(answer.body);
	});
	server.on("connection", () => {
		connections += 1;
	});
	const loopback: LoopbackServer = await listenOnLoopback(server, host);
	api.origin = loopback.origin;
	api.close = loopback.close;
	return api;
}

let platform: TestPlatform;
let secondInstance: RunningPlatform | undefined;
let standIn: ProviderStandIn;
let api: Awaited<ReturnType<typeof startApi>>;
let internal: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
	platform = await startTestPlatform({ logger: capturingLogger });
	standIn = await startProviderStandIn();
	api = await startApi();
	internal = await startApi("127.0.0.2");
});
afterAll(async () => {
	await Promise.all([standIn?.close(), api?.close(), internal?.close()]);
	await secondInstance?.close();
	await platform?.stop();
});
beforeEach(() => {
	standIn.reset();
	api.requests.length = 0;
});

const toolMessages = (request: RecordedRequest) => (request.body.messages as { role: string; content: string; tool_call_id?: string }[]).filter((message) => message.role === "tool");

/** The model asks for `call` until it has a tool result, then answers with what the results said. */
function callThenAnswer(call: { name: string; arguments: Record<string, unknown> }) {
	standIn.responder = (request) => {
		const results = toolMessages(request);
		if (results.length === 0) return { kind: "completion", toolCalls: [call] };
		return { kind: "completion", content: ["From the tool: ", results.map((result) => result.content).join(" | ")] };
	};
}

async function deploy(workspace: TestWorkspace, slug: string, tools: AssistantTool[], generation: Record<string, unknown> = {}) {
	const context = () => platform.operator();
	await createAssistant(context(), { workspaceId: workspace.workspaceId, slug, name: slug });
	await updateAssistantDraft(context(), {
		workspaceId: workspace.workspaceId,
		slug,
		patch: { provider: "openai", model: "gpt-4o-mini", systemPrompt: "You use tools.", variables: [], generation: { maxRetries: 0, ...generation }, knowledge: [], tools },
	});
	const version = await createAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug });
	await publishAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug, version: version.version });
	return version.version;
}

const run = (workspace: TestWorkspace, slug: string, input: string, stream = false, signal?: AbortSignal) =>
	fetch(`${platform.url}/runtime/assistants/${slug}${stream ? "/stream" : ""}`, {
		method: "POST",
		headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
		body: JSON.stringify({ input }),
		signal,
	});

const weatherTool = (url: string, overrides: Partial<Extract<AssistantTool, { type: "http" }>> = {}): AssistantTool => ({
	type: "http",
	name: "get_weather",
	description: "The weather in a city",
	method: "POST",
	url,
	parameters: { type: "object", properties: { city: { type: "string" }, units: { type: "string", enum: ["metric", "imperial"] } }, required: ["city"] },
	body: ["units"],
	headers: { Authorization: "Bearer {{secret:WEATHER_KEY}}" },
	...overrides,
});

describe("assistant tools", () => {
	it("knowledge_search: answers from a document only the tool could find; the stream shows tool_call, tool_result, then deltas; the trace shows the steps", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const created = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Harbour", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } } });
		const sourceId = ((await created.json()) as { id: string }).id;
		const fact = "The ravens on Skellig Varra are fed at seven minutes past noon.";
		const uploaded = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, {
			key: workspace.apiKey,
			body: { filename: "ravens.txt", contentBase64: Buffer.from(`Harbour notes.\n\n${fact}`).toString("base64") },
		});
		const documentId = ((await uploaded.json()) as { id: string }).id;
		for (const deadline = Date.now() + 20_000; ; ) {
			const status = ((await (await platform.request("GET", `/knowledge/sources/${sourceId}/documents/${documentId}`, { key: workspace.apiKey })).json()) as { status: string }).status;
			if (status === "READY") break;
			if (Date.now() > deadline) throw new Error(`document still ${status}`);
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		await deploy(workspace, "harbour", [{ type: "knowledge_search", name: "search_notes", description: "Searches the harbour notes", sourceIds: [sourceId], topK: 3 }]);
		callThenAnswer({ name: "search_notes", arguments: { query: "when are the ravens fed" } });

		const response = await run(workspace, "harbour", "Tell me about the birds.", true);
		expect(response.status).toBe(200);
		const frames = parseSseFrames(await response.text());
		const names = frames.map((frame) => frame.event).filter((name) => name !== ":comment");
		expect(names.slice(0, 2)).toEqual(["tool_call", "tool_result"]);
		expect(names.slice(2, -2).every((name) => name === "delta")).toBe(true);
		expect(names.slice(-2)).toEqual(["usage", "done"]);
		expect(frames[0]!.data).toMatchObject({ name: "search_notes", arguments: { query: "when are the ravens fed" } });
		expect(frames[1]!.data).toMatchObject({ name: "search_notes", ok: true });
		const answer = frames.filter((frame) => frame.event === "delta").map((frame) => (frame.data as { content: string }).content).join("");
		expect(answer).toContain(fact);
		// The first model call had no knowledge in its prompt: only the tool found it.
		expect(JSON.stringify(standIn.requests[0]!.body.messages)).not.toContain("Skellig");
		expect(standIn.requests[0]!.body.tools).toEqual([{ type: "function", function: expect.objectContaining({ name: "search_notes" }) }]);
		const done = frames.find((frame) => frame.event === "done")!.data as { traceId: string; finishReason: string };
		expect(done.finishReason).toBe("stop");
		const usage = frames.find((frame) => frame.event === "usage")!.data as { inputTokens: number };
		expect(usage.inputTokens).toBe(22); // two model calls of 11 input tokens each, summed
		const trace = await getTrace(platform.operator(), { workspaceId: workspace.workspaceId, traceId: done.traceId });
		expect((trace.steps as { type: string }[]).map((step) => step.type)).toEqual(["model", "tool", "model"]);
		expect((trace.steps as Record<string, unknown>[])[1]).toMatchObject({ name: "search_notes", ok: true, arguments: { query: "when are the ravens fed" } });
		expect((trace.steps as Record<string, unknown>[])[0]).toMatchObject({ inputTokens: 11, finishReason: "tool_calls" });
	});

	it("http: the model's arguments go in the URL and body, the secret in the header, and the secret is nowhere in the answer, the stream, the trace or the logs", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		await deploy(workspace, "weather", [weatherTool(`${api.origin}/weather/{city}`)]);
		// A hostile API echoes the header back, and the model repeats the secret in its arguments.
		callThenAnswer({ name: "get_weather", arguments: { city: "Saint Malo", units: "metric" } });

		const response = await run(workspace, "weather", "Weather in Saint Malo?");
		const text = await response.text();
		expect(response.status).toBe(200);
		expect(api.requests).toHaveLength(1);
		expect(api.requests[0]).toMatchObject({ method: "POST", url: "/weather/Saint%20Malo", body: '{"units":"metric"}' });
		expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
		const body = JSON.parse(text) as { toolCalls: Record<string, unknown>[]; message: { content: string }; finishReason: string; traceId: string };
		expect(body.toolCalls).toEqual([{ id: expect.any(String), name: "get_weather", arguments: { city: "Saint Malo", units: "metric" }, ok: true, latencyMs: expect.any(Number) }]);
		expect(body.message.content).toContain("[redacted]");
		// What went back to the model was redacted too.
		expect(JSON.stringify(standIn.requests[1]!.body)).not.toContain(SECRET);

		const streamed = await run(workspace, "weather", "Weather in Saint Malo?", true);
		const streamText = await streamed.text();
		const trace = await getTrace(platform.operator(), { workspaceId: workspace.workspaceId, traceId: body.traceId });
		await platform.services.traces.flush();
		for (const place of [text, streamText, JSON.stringify(trace), logLines.join("\n")]) expect(place).not.toContain(SECRET);
		expect(JSON.stringify(trace)).toContain("get_weather");
	});

	it("a failing call goes back to the model as an error result: invalid arguments, an HTTP error", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		await deploy(workspace, "weather-errors", [weatherTool(`${api.origin}/weather/{city}`)]);
		api.answer = () => ({ status: 503, body: "down for maintenance" });
		standIn.script(
			{ kind: "completion", toolCalls: [{ name: "get_weather", arguments: { city: 42 } }, { name: "get_weather", arguments: { city: "Brest" } }] },
			{ kind: "completion", content: "Sorry." },
		);
		const response = await run(workspace, "weather-errors", "Weather?");
		const body = (await response.json()) as { toolCalls: { ok: boolean; error?: string }[]; finishReason: string };
		expect(body.finishReason).toBe("stop");
		expect(body.toolCalls.map((call) => call.ok)).toEqual([false, false]);
		expect(body.toolCalls[0]!.error).toMatch(/arguments\.city must be a string/);
		expect(body.toolCalls[1]!.error).toMatch(/HTTP 503: down for maintenance/);
		const results = toolMessages(standIn.requests[1]!);
		expect(results.map((result) => result.content)).toEqual([expect.stringMatching(/^Error: Invalid arguments/), expect.stringMatching(/^Error: HTTP 503/)]);
		expect(api.requests).toHaveLength(1);
		api.answer = (request) => ({ status: 200, body: JSON.stringify({ echo: request.headers.authorization }) });
	});

	it("the step budget ends a model that calls tools forever with finishReason tool_calls", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		await deploy(workspace, "forever", [weatherTool(`${api.origin}/weather/{city}`)], { maxToolSteps: 2 });
		standIn.responder = () => ({ kind: "completion", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] });
		const response = await run(workspace, "forever", "Loop.");
		const body = (await response.json()) as { finishReason: string; toolCalls: unknown[]; usage: { inputTokens: number } };
		expect(body.finishReason).toBe("tool_calls");
		expect(body.toolCalls).toHaveLength(2);
		expect(standIn.requests).toHaveLength(3);
		expect(body.usage.inputTokens).toBe(33);

		const streamed = await run(workspace, "forever", "Loop.", true);
		const frames = parseSseFrames(await streamed.text());
		expect(frames.find((frame) => frame.event === "done")!.data).toMatchObject({ finishReason: "tool_calls" });
	});

	it("egress: a tool aimed at a loopback address that is not allowed, or redirected to one, is refused and the model gets the refusal", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		await deploy(workspace, "internal", [weatherTool(`${internal.origin}/weather/{city}`)]);
		callThenAnswer({ name: "get_weather", arguments: { city: "Paris" } });
		const direct = (await (await run(workspace, "internal", "Weather?")).json()) as { toolCalls: { ok: boolean; error: string }[] };
		expect(direct.toolCalls[0]).toMatchObject({ ok: false, error: expect.stringMatching(/Refused by the egress policy: 127\.0\.0\.2 is a special-use address \(loopback/) });
		expect(toolMessages(standIn.requests[1]!)[0]!.content).toMatch(/Refused by the egress policy/);

		standIn.reset();
		await deploy(workspace, "redirected", [weatherTool(`${api.origin}/weather/{city}`, { method: "GET", body: undefined, parameters: { type: "object", properties: { city: { type: "string" } } } })]);
		api.answer = () => ({ status: 302, body: "", headers: { location: `${internal.origin}/metadata` } });
		callThenAnswer({ name: "get_weather", arguments: { city: "Paris" } });
		const redirected = (await (await run(workspace, "redirected", "Weather?")).json()) as { toolCalls: { ok: boolean; error: string }[] };
		expect(redirected.toolCalls[0]).toMatchObject({ ok: false, error: expect.stringMatching(/Refused by the egress policy/) });
		expect(api.requests).toHaveLength(1);
		expect(internal.connections).toBe(0);
		api.answer = (request) => ({ status: 200, body: JSON.stringify({ echo: request.headers.authorization }) });
	});

	it("aborting a stream mid-loop aborts the tool call in flight: the local API sees the request closed", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		await deploy(workspace, "slow", [weatherTool(`${api.origin}/weather/{city}`, { timeoutMs: 30_000 })]);
		api.answer = () => "hang";
		callThenAnswer({ name: "get_weather", arguments: { city: "Paris" } });
		const controller = new AbortController();
		const response = await run(workspace, "slow", "Weather?", true, controller.signal);
		const reader = response.body!.getReader();
		await reader.read();
		for (const deadline = Date.now() + 5000; api.requests.length === 0; ) {
			if (Date.now() > deadline) throw new Error("the tool call never arrived");
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		controller.abort();
		for (const deadline = Date.now() + 5000; !api.requests[0]!.closedEarly; ) {
			if (Date.now() > deadline) throw new Error("the tool call was not aborted");
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		expect(standIn.requests).toHaveLength(1);
		api.answer = (request) => ({ status: 200, body: JSON.stringify({ echo: request.headers.authorization }) });
	});

	it("rollback to a version without tools serves it without tools on the next call, on a second instance", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await setSecret(platform.operator(), { workspaceId: workspace.workspaceId, name: "WEATHER_KEY", value: SECRET });
		const context = () => platform.operator();
		await createAssistant(context(), { workspaceId: workspace.workspaceId, slug: "rollback", name: "rollback" });
		await updateAssistantDraft(context(), { workspaceId: workspace.workspaceId, slug: "rollback", patch: { generation: { maxRetries: 0 } } });
		const plain = await createAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "rollback" });
		await updateAssistantDraft(context(), { workspaceId: workspace.workspaceId, slug: "rollback", patch: { tools: [weatherTool(`${api.origin}/weather/{city}`)] } });
		const withTools = await createAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "rollback" });
		await publishAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "rollback", version: withTools.version });
		secondInstance ??= await startPlatform({
			databaseUrl: platform.databaseUrl,
			secretKey: TEST_SECRET_KEY,
			port: 0,
			host: "127.0.0.1",
			publicBaseUrl: platform.services.settings.publicBaseUrl,
			dataDirectory: platform.dataDirectory,
			logger: createLogger("silent"),
			egress: TEST_EGRESS,
		});
		standIn.fallback = { kind: "completion", content: "plain answer" };
		const second = () =>
			fetch(`${secondInstance!.url}/runtime/assistants/rollback`, {
				method: "POST",
				headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" },
				body: JSON.stringify({ input: "hi" }),
			});
		await (await second()).text();
		expect(standIn.requests.at(-1)!.body.tools).toBeDefined();
		await publishAssistantVersion(context(), { workspaceId: workspace.workspaceId, slug: "rollback", version: plain.version });
		const after = (await (await second()).json()) as { toolCalls?: unknown; assistant: { version: number } };
		expect(after.assistant.version).toBe(plain.version);
		expect(after.toolCalls).toBeUndefined();
		expect(standIn.requests.at(-1)!.body).not.toHaveProperty("tools");
		standIn.fallback = { kind: "completion", content: "Hello from the stand-in" };
	});
});
