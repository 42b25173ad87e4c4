import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../helpers/platform";
import { type ProviderStandIn, startProviderStandIn } from "../helpers/provider-stand-in";
import { eventually } from "../knowledge/knowledge-helpers";
import { executeBody, workspaceWithCredential } from "../runtime/runtime-fixtures";

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
