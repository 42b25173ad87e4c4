import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { eventually, searchPath, waitForDocument } from "../knowledge/knowledge-helpers";
import { deployAssistantWithTools, executeBody, workspaceWithCredential } from "../runtime/runtime-fixtures";

interface OtlpAttribute {
	key: string;
	value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; arrayValue?: { values: { stringValue?: string }[] } };
}
interface OtlpSpan {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	name: string;
	kind: number;
	attributes: OtlpAttribute[];
	links?: { traceId: string; spanId: string }[];
}

/** A local OTLP/HTTP receiver (JSON), keeping every request body as received. */
async function startOtlpReceiver(): Promise<{ url: string; bodies: string[]; spans(): OtlpSpan[]; close(): Promise<void> }> {
	const bodies: string[] = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on("data", (chunk: Buffer) => chunks.push(chunk));
		request.on("end", () => {
			if (request.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"));
			response.writeHead(200, { "content-type": "application/json" });
			response.end("{}");
		});
	}).listen(0, "127.0.0.1");
	await once(server, "listening");
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		bodies,
		spans: () =>
			bodies.flatMap((body) =>
				(JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
			),
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

const attribute = (span: OtlpSpan, key: string) => {
	const value = span.attributes.find((entry) => entry.key === key)?.value;
	if (!value) return undefined;
	if (value.arrayValue) return value.arrayValue.values.map((item) => item.stringValue);
	return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
};

/** A caller's W3C trace context: a new trace id, and the caller's own span id for the request's parent. */
function callerTrace() {
	const traceId = randomBytes(16).toString("hex");
	const spanId = randomBytes(8).toString("hex");
	return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

describe("OpenTelemetry over OTLP/HTTP", () => {
	let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
	let standIn: ProviderStandIn;
	let platform: TestPlatform;

	beforeAll(async () => {
		receiver = await startOtlpReceiver();
		standIn = await startProviderStandIn();
		platform = await startTestPlatform({ observability: { accessLog: false, tracing: { tracesEndpoint: `${receiver.url}/v1/traces`, headers: {}, serviceName: "platform-under-test" } } });
	});
	afterAll(async () => {
		await platform?.stop();
		await standIn?.close();
		await receiver?.close();
	});

	it("continues the caller's traceparent with the request's span, its generation a child with the GenAI attributes, and no message text when the workspace stores none", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set store_trace_content = false where id = ?", [workspace.workspaceId]);
		standIn.script({ kind: "completion", content: "SECRET-OUTPUT-TEXT", usage: { prompt_tokens: 7, completion_tokens: 3 } });
		const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
		const callerSpanId = "00f067aa0ba902b7";
		const response = await platform.request("POST", "/runtime/execute", {
			key: workspace.apiKey,
			body: executeBody({ messages: [{ role: "user", content: "SECRET-PROMPT-TEXT" }] }),
			headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
		});
		expect(response.status).toBe(200);
		const platformTraceId = ((await response.json()) as { traceId: string }).traceId;

		const spans = await eventually(async () => {
			await platform.services.observability.tracing?.flush();
			const ours = receiver.spans().filter((span) => span.traceId === traceId);
			return ours.length >= 2 && ours;
		}, 10_000, "the request's spans at the receiver");

		const requestSpan = spans.find((span) => span.name === "POST /runtime/execute") as OtlpSpan;
		expect(requestSpan.parentSpanId).toBe(callerSpanId);
		expect(attribute(requestSpan, "http.route")).toBe("/runtime/execute");
		expect(attribute(requestSpan, "http.response.status_code")).toBe(200);

		const generation = spans.find((span) => span.name === "chat gpt-4o-mini") as OtlpSpan;
		expect(generation.parentSpanId).toBe(requestSpan.spanId);
		expect(attribute(generation, "gen_ai.system")).toBe("openai");
		expect(attribute(generation, "gen_ai.operation.name")).toBe("chat");
		expect(attribute(generation, "gen_ai.request.model")).toBe("gpt-4o-mini");
		expect(attribute(generation, "gen_ai.response.model")).toBe("gpt-4o-mini");
		expect(attribute(generation, "gen_ai.usage.input_tokens")).toBe(7);
		expect(attribute(generation, "gen_ai.usage.output_tokens")).toBe(3);
		expect(attribute(generation, "gen_ai.response.finish_reasons")).toEqual(["stop"]);
		expect(attribute(generation, "platform.trace_id")).toBe(platformTraceId);
		expect(attribute(generation, "platform.generation.attempts")).toBe(1);

		const exported = receiver.bodies.join("\n");
		expect(exported).not.toContain("SECRET-PROMPT-TEXT");
		expect(exported).not.toContain("SECRET-OUTPUT-TEXT");
		expect(exported).not.toContain(workspace.apiKey);
	});

	/** Flushes until `enough` holds for the spans received so far. */
	const spansWhen = (enough: (spans: OtlpSpan[]) => boolean, what: string) =>
		eventually(async () => {
			await platform.services.observability.tracing?.flush();
			const spans = receiver.spans();
			return enough(spans) && spans;
		}, 20_000, what);

	it("a generation retried after a 503 (a stream after a 429): two provider-attempt children of its span, the failed one retryable with its status, all in the caller's trace", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		standIn.script({ kind: "error", status: 503 }, { kind: "completion", content: "Recovered.", usage: { prompt_tokens: 5, completion_tokens: 2 } });
		const caller = callerTrace();
		const response = await platform.request("POST", "/runtime/execute", { key: workspace.apiKey, body: executeBody(), headers: { traceparent: caller.traceparent } });
		expect(response.status).toBe(200);

		const spans = await spansWhen((all) => all.filter((span) => span.traceId === caller.traceId).length >= 4, "the generation's spans");
		const ours = spans.filter((span) => span.traceId === caller.traceId);
		const requestSpan = ours.find((span) => span.name === "POST /runtime/execute") as OtlpSpan;
		expect(requestSpan.parentSpanId).toBe(caller.spanId);
		const generation = ours.find((span) => span.name === "chat gpt-4o-mini") as OtlpSpan;
		expect(generation.parentSpanId).toBe(requestSpan.spanId);
		expect(attribute(generation, "platform.generation.attempts")).toBe(2);

		const attempts = ours.filter((span) => span.parentSpanId === generation.spanId).sort((a, b) => Number(attribute(a, "platform.provider.attempt")) - Number(attribute(b, "platform.provider.attempt")));
		expect(attempts.map((span) => span.name)).toEqual(["chat gpt-4o-mini attempt 1", "chat gpt-4o-mini attempt 2"]);
		for (const attempt of attempts) {
			expect(attribute(attempt, "gen_ai.system")).toBe("openai");
			expect(attribute(attempt, "gen_ai.request.model")).toBe("gpt-4o-mini");
		}
		const [failed, succeeded] = attempts as [OtlpSpan, OtlpSpan];
		expect(attribute(failed, "platform.provider.outcome")).toBe("failure");
		expect(attribute(failed, "error.type")).toBe("server_error");
		expect(attribute(failed, "platform.provider.retryable")).toBe(true);
		expect(attribute(failed, "http.response.status_code")).toBe(503);
		expect(attribute(succeeded, "platform.provider.outcome")).toBe("success");
		expect(attribute(succeeded, "error.type")).toBeUndefined();
		// The retry waited between them: the second began after the first ended.
		expect(BigInt((succeeded as unknown as { startTimeUnixNano: string }).startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt((failed as unknown as { endTimeUnixNano: string }).endTimeUnixNano));

		// A stream retried before its first event: the same two attempts under its generation.
		standIn.script({ kind: "error", status: 429 }, { kind: "completion", content: ["Re", "covered."], usage: { prompt_tokens: 5, completion_tokens: 2 } });
		const streamCaller = callerTrace();
		const streamed = await platform.request("POST", "/runtime/stream", { key: workspace.apiKey, body: executeBody(), headers: { traceparent: streamCaller.traceparent } });
		expect(streamed.status).toBe(200);
		expect(await streamed.text()).toContain("covered.");
		const streamSpans = (await spansWhen((all) => all.filter((span) => span.traceId === streamCaller.traceId).length >= 4, "the stream's spans")).filter((span) => span.traceId === streamCaller.traceId);
		const streamGeneration = streamSpans.find((span) => span.name === "chat gpt-4o-mini") as OtlpSpan;
		expect(attribute(streamGeneration, "platform.generation.streamed")).toBe(true);
		const streamAttempts = streamSpans.filter((span) => span.parentSpanId === streamGeneration.spanId);
		expect(streamAttempts.map((span) => [attribute(span, "platform.provider.attempt"), attribute(span, "platform.provider.outcome"), attribute(span, "error.type"), attribute(span, "http.response.status_code")]).sort()).toEqual([
			[1, "failure", "rate_limited", 429],
			[2, "success", undefined, undefined],
		]);
	});

	it("an upload's ingestion job links to the upload's span; a search and an assistant's tool call have spans of their own; no text of a workspace that stores none is in any span", async () => {
		const workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set store_trace_content = false where id = ?", [workspace.workspaceId]);
		const created = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Harbour", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } } });
		const sourceId = ((await created.json()) as { id: string }).id;

		const upload = callerTrace();
		const uploaded = await platform.request("POST", `/knowledge/sources/${sourceId}/documents/upload`, {
			key: workspace.apiKey,
			body: { filename: "ravens.txt", contentBase64: Buffer.from("Harbour notes.\n\nThe ravens are fed at noon. SECRET-DOCUMENT-TEXT").toString("base64") },
			headers: { traceparent: upload.traceparent },
		});
		expect(uploaded.status).toBe(201);
		const documentId = ((await uploaded.json()) as { id: string }).id;
		expect((await waitForDocument(platform, workspace.apiKey, sourceId, documentId)).status).toBe("READY");

		const searched = callerTrace();
		const search = await platform.request("GET", searchPath(sourceId, { query: "ravens fed SECRET-SEARCH-QUERY", topK: 4 }), { key: workspace.apiKey, headers: { traceparent: searched.traceparent } });
		expect(search.status).toBe(200);

		await deployAssistantWithTools(platform, workspace, "harbour", [{ type: "knowledge_search", name: "search_notes", description: "Searches the harbour notes", sourceIds: [sourceId], topK: 3 }]);
		standIn.responder = (request) => {
			const results = (request.body.messages as { role: string; content: string }[]).filter((message) => message.role === "tool");
			if (results.length === 0) return { kind: "completion", toolCalls: [{ name: "search_notes", arguments: { query: "when are the ravens fed SECRET-TOOL-QUERY" } }] };
			return { kind: "completion", content: ["From the tool: ", results.map((result) => result.content).join(" | ")] };
		};
		const asked = callerTrace();
		const answered = await platform.request("POST", "/runtime/assistants/harbour", { key: workspace.apiKey, body: { input: "Tell me about the birds. SECRET-PROMPT-TEXT" }, headers: { traceparent: asked.traceparent } });
		standIn.responder = null;
		expect(answered.status).toBe(200);
		expect(((await answered.json()) as { message: { content: string } }).message.content).toContain("SECRET-DOCUMENT-TEXT");

		const isJob = (span: OtlpSpan) => span.name === "process knowledge-ingestion" && attribute(span, "platform.document.id") === documentId;
		const spans = await spansWhen(
			(all) => all.some(isJob) && all.filter((span) => span.traceId === asked.traceId).length >= 6 && all.some((span) => span.traceId === searched.traceId && span.name === "knowledge.search"),
			"the upload's, the search's and the assistant's spans",
		);

		// The ingestion job: a trace of its own, linked to the upload request's span.
		const uploadSpan = spans.find((span) => span.traceId === upload.traceId && span.name === "POST /knowledge/sources/:sourceId/documents/upload") as OtlpSpan;
		expect(uploadSpan.parentSpanId).toBe(upload.spanId);
		const job = spans.find(isJob) as OtlpSpan;
		expect(job.traceId).not.toBe(upload.traceId);
		expect(job.links).toEqual([expect.objectContaining({ traceId: upload.traceId, spanId: uploadSpan.spanId })]);
		expect(attribute(job, "messaging.destination.name")).toBe("knowledge-ingestion");
		expect(attribute(job, "platform.job.outcome")).toBe("ready");

		// The search endpoint: its search a child of the request's span.
		const searchRequest = spans.find((span) => span.traceId === searched.traceId && span.name === "GET /knowledge/sources/:sourceId/search") as OtlpSpan;
		const searchSpan = spans.find((span) => span.traceId === searched.traceId && span.name === "knowledge.search") as OtlpSpan;
		expect(searchSpan.parentSpanId).toBe(searchRequest.spanId);
		expect(attribute(searchSpan, "platform.knowledge.source_id")).toBe(sourceId);
		expect(attribute(searchSpan, "platform.knowledge.top_k")).toBe(4);
		expect(attribute(searchSpan, "platform.knowledge.result_count")).toBe(1);

		// The assistant: request > generation > (two provider attempts, the tool call > its search).
		const ours = spans.filter((span) => span.traceId === asked.traceId);
		const childrenOf = (parent: OtlpSpan) => ours.filter((span) => span.parentSpanId === parent.spanId).map((span) => span.name).sort();
		const assistantRequest = ours.find((span) => span.name === "POST /runtime/assistants/:slug") as OtlpSpan;
		expect(assistantRequest.parentSpanId).toBe(asked.spanId);
		const generation = ours.find((span) => span.name === "chat gpt-4o-mini") as OtlpSpan;
		expect(generation.parentSpanId).toBe(assistantRequest.spanId);
		expect(childrenOf(generation)).toEqual(["chat gpt-4o-mini attempt 1", "chat gpt-4o-mini attempt 2", "execute_tool search_notes"]);
		const tool = ours.find((span) => span.name === "execute_tool search_notes") as OtlpSpan;
		expect(attribute(tool, "gen_ai.operation.name")).toBe("execute_tool");
		expect(attribute(tool, "gen_ai.tool.name")).toBe("search_notes");
		expect(attribute(tool, "platform.tool.kind")).toBe("knowledge_search");
		expect(attribute(tool, "platform.tool.outcome")).toBe("success");
		expect(childrenOf(tool)).toEqual(["knowledge.search"]);
		const toolSearch = ours.find((span) => span.name === "knowledge.search") as OtlpSpan;
		expect(attribute(toolSearch, "platform.knowledge.top_k")).toBe(3);

		const exported = receiver.bodies.join("\n");
		for (const marker of ["SECRET-DOCUMENT-TEXT", "SECRET-SEARCH-QUERY", "SECRET-TOOL-QUERY", "SECRET-PROMPT-TEXT", "You use tools."]) expect(exported).not.toContain(marker);
	});

	it("starts a trace of its own for a request without traceparent", async () => {
		const before = receiver.spans().length;
		expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
		const span = await eventually(async () => {
			await platform.services.observability.tracing?.flush();
			return receiver.spans().slice(before).find((candidate) => candidate.name === "GET /healthz");
		}, 10_000, "the health check's span");
		expect(span.parentSpanId ?? "").toBe("");
	});

	it("is absent, with nothing of OpenTelemetry loaded, when no endpoint is configured", async () => {
		const plain = await startTestPlatform();
		try {
			expect(plain.services.observability.tracing).toBeNull();
		} finally {
			await plain.stop();
		}
	});
});
