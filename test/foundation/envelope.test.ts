import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";

let platform: TestPlatform;
let workspace: TestWorkspace;

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
});
afterAll(() => platform?.stop());

async function sourceCount(): Promise<number> {
	const rows = await platform.orm.em.getConnection().execute("select count(*)::int as count from knowledge_sources");
	return rows[0].count;
}

const post = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
	fetch(`${platform.url}/knowledge/sources`, { method: "POST", headers: { authorization: `Bearer ${workspace.apiKey}`, ...headers }, body });

describe("validation errors", () => {
	it("400 VALIDATION_ERROR names every offender by path, unknown fields included, and writes nothing", async () => {
		const before = await sourceCount();
		const response = await platform.request("POST", "/knowledge/sources", {
			key: workspace.apiKey,
			body: { description: 42, embeddingModel: { provider: "nope", model: "" }, colour: "red" },
		});
		expect(response.status).toBe(400);
		const body = await response.json();
		expect(body.code).toBe("VALIDATION_ERROR");
		expect(body.status).toBe(400);
		const fields = Object.fromEntries(body.fields.map((field: { field: string; issue: string }) => [field.field, field.issue]));
		expect(Object.keys(fields).sort()).toEqual(["colour", "description", "embeddingModel.model", "embeddingModel.provider", "name"]);
		expect(fields.name).toBe("Required");
		expect(fields.colour).toBe("Unknown field");
		expect(await sourceCount()).toBe(before);
	});

	it("query parameters are validated too", async () => {
		const response = await platform.request("GET", "/knowledge/sources?limit=1000", { key: workspace.apiKey });
		const body = await response.json();
		expect(response.status).toBe(400);
		expect(body.fields).toEqual([{ field: "limit", issue: expect.stringContaining("100") }]);
	});

	it("a forged cursor is a validation error, not a crash", async () => {
		const response = await platform.request("GET", "/knowledge/sources?cursor=bm90LWEtY3Vyc29y", { key: workspace.apiKey });
		expect(response.status).toBe(400);
		expect((await response.json()).fields[0].field).toBe("cursor");
	});

	it("a JSON array instead of an object names the body", async () => {
		const response = await post("[1,2]");
		const body = await response.json();
		expect(response.status).toBe(400);
		expect(body.code).toBe("VALIDATION_ERROR");
		expect(body.fields[0].field).toBe("body");
	});
});

describe("malformed requests", () => {
	it.each([
		["malformed JSON", '{"name": ', { "content-type": "application/json" }],
		["a wrong content type", '{"name":"x"}', { "content-type": "text/plain" }],
		["form encoding", "name=x", { "content-type": "application/x-www-form-urlencoded" }],
		["no body at all", "", { "content-type": "application/json" }],
	])("400 INVALID_REQUEST for %s, and nothing is written", async (_label, body, headers) => {
		const before = await sourceCount();
		const response = await post(body, headers);
		expect(response.status).toBe(400);
		const envelope = await response.json();
		expect(envelope).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
		expect(envelope.fields).toBeUndefined();
		expect(await sourceCount()).toBe(before);
	});

	it("accepts application/json with a charset", async () => {
		const response = await post('{"name":"Charset"}', { "content-type": "application/json; charset=utf-8" });
		expect(response.status).toBe(201);
	});
});

describe("body size limit", () => {
	it("413 PAYLOAD_TOO_LARGE with the envelope, read by a client that is still sending", async () => {
		const before = await sourceCount();
		const big = JSON.stringify({ name: "x", description: "a".repeat(9 * 1024 * 1024) });
		const response = await post(big);
		expect(response.status).toBe(413);
		expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
		expect(await sourceCount()).toBe(before);
	});

	it("a chunked upload that grows past the limit also gets the envelope, not a reset", async () => {
		const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
			const url = new URL(`${platform.url}/knowledge/sources`);
			const request = httpRequest(
				{ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" } },
				(response) => {
					let text = "";
					response.on("data", (chunk) => {
						text += chunk;
					});
					response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
				},
			);
			request.on("error", reject);
			const piece = Buffer.alloc(256 * 1024, "a");
			request.write('{"name":"x","description":"');
			let sent = 0;
			const pump = () => {
				while (sent < 10 * 1024 * 1024) {
					sent += piece.length;
					if (!request.write(piece)) return void request.once("drain", pump);
				}
				request.end('"}');
			};
			pump();
		});
		expect(status).toBe(413);
		expect(JSON.parse(body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
	});
});

describe("routing and unexpected failures", () => {
	it("an unknown route is a 404 envelope, authenticated or not", async () => {
		for (const [method, path] of [
			["GET", "/nope"],
			["POST", "/runtime/nope"],
			["PATCH", "/knowledge/sources"],
		]) {
			const response = await platform.request(method, path, { key: workspace.apiKey });
			expect(response.status).toBe(404);
			expect(await response.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
		}
	});

	it("500 INTERNAL_ERROR says nothing internal, and the log line carries the request id the client got", async () => {
		const lines: Record<string, unknown>[] = [];
		const logger = createLogger("silent");
		const capture = { ...logger, error: (message: string, context?: Record<string, unknown>) => lines.push({ message, ...context }) };
		const broken = await startTestPlatform({ logger: capture });
		try {
			const owner = await broken.createWorkspace();
			// A database whose table vanished: the kind of fault the caller cannot fix or should see.
			await broken.orm.em.getConnection().execute("alter table knowledge_sources rename to knowledge_sources_gone");
			const response = await broken.request("GET", "/knowledge/sources", { key: owner.apiKey });
			expect(response.status).toBe(500);
			const body = await response.json();
			expect(body.code).toBe("INTERNAL_ERROR");
			expect(body.status).toBe(500);
			expect(body.message).not.toMatch(/knowledge_sources|relation|select|postgres/i);
			const requestId = response.headers.get("x-request-id");
			expect(requestId).toBeTruthy();
			expect(body.message).toContain(requestId);
			expect(lines).toHaveLength(1);
			expect(lines[0].requestId).toBe(requestId);
			expect(String((lines[0].error as Error).message)).toMatch(/knowledge_sources/);
		} finally {
			await broken.stop();
		}
	});

	it("keeps a well-formed X-Request-Id from a proxy", async () => {
		const response = await platform.request("GET", "/healthz", { headers: { "x-request-id": "edge-1234567890" } });
		expect(response.headers.get("x-request-id")).toBe("edge-1234567890");
	});
});
