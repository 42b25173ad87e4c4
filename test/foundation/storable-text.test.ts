import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { rawExchange } from "../helpers/raw-http";
import { createSource } from "../knowledge/knowledge-helpers";

// NUL and unpaired surrogates: PostgreSQL's text and jsonb cannot store them, so they are refused
// at the contract wherever a client can put text, and nothing reaches the database.
const NUL = "a\u0000b";
const LONE_HIGH = "a\ud800b";
const LONE_LOW = "\udc00";
const ISSUE = "Must not contain NUL (U+0000) or an unpaired UTF-16 surrogate";

let platform: TestPlatform;
let workspace: TestWorkspace;
let sourceId: string;

beforeAll(async () => {
	platform = await startTestPlatform();
	workspace = await platform.createWorkspace();
	sourceId = await createSource(platform, workspace.apiKey);
});
afterAll(() => platform?.stop());

async function rowCounts() {
	const [row] = await platform.orm.em
		.fork()
		.getConnection()
		.execute("select (select count(*) from knowledge_sources)::int as sources, (select count(*) from knowledge_documents)::int as documents, (select count(*) from traces)::int as traces");
	return row;
}

/** Sends `body` as JSON (JSON.stringify writes lone surrogates as \ud800 escapes) and expects the fields named. */
async function expectRefused(method: string, path: string, body: unknown, fields: string[]) {
	const before = await rowCounts();
	const response = await platform.request(method, path, { key: workspace.apiKey, body });
	const envelope = await response.json();
	expect(response.status, JSON.stringify(envelope)).toBe(400);
	expect(envelope.code).toBe("VALIDATION_ERROR");
	const named = envelope.fields.filter((field: { issue: string }) => field.issue === ISSUE).map((field: { field: string }) => field.field);
	expect(named.sort()).toEqual([...fields].sort());
	await platform.services.traces.flush();
	expect(await rowCounts()).toEqual(before);
}

describe("text the database cannot store is refused at the contract", () => {
	it("in runtime messages, at any depth, NUL and lone surrogates alike", async () => {
		const messages = [
			{ role: "user", content: "fine 😀" },
			{ role: "user", content: NUL },
			{ role: "assistant", content: LONE_HIGH },
			{ role: "user", content: `${LONE_LOW}x` },
		];
		await expectRefused("POST", "/runtime/execute", { providerName: "openai", model: "gpt-4o-mini", messages }, ["messages[1].content", "messages[2].content", "messages[3].content"]);
		await expectRefused("POST", "/runtime/stream", { providerName: "openai", model: `gpt${LONE_HIGH}`, messages: [{ role: "user", content: "hi" }] }, ["model"]);
	});

	it("at any nesting depth, without running out of stack", async () => {
		const depth = 200_000;
		const body = `{"providerName":"openai","model":"m","messages":${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}}`;
		const response = await fetch(`${platform.url}/runtime/execute`, { method: "POST", headers: { authorization: `Bearer ${workspace.apiKey}`, "content-type": "application/json" }, body });
		expect(response.status).toBe(400);
		const envelope = await response.json();
		expect(envelope.code, envelope.message).toBe("VALIDATION_ERROR");
		expect(envelope.fields).toContainEqual({ field: `messages${"[0]".repeat(depth)}`, issue: ISSUE });
	});

	it("in an assistant's input and variables, keys included", async () => {
		await expectRefused("POST", "/runtime/assistants/support-bot", { input: NUL, variables: { name: LONE_HIGH, [`k${"\u0000"}`]: "x" } }, [
			"input",
			"variables.name",
			"variables.k\u0000",
		]);
	});

	it("in source names and descriptions, search queries and filenames", async () => {
		await expectRefused("POST", "/knowledge/sources", { name: NUL, description: LONE_LOW }, ["name", "description"]);
		// Search is a GET: a NUL arrives percent-encoded; a lone surrogate cannot (percent-decoding is UTF-8, which has none).
		await expectRefused("GET", `/knowledge/sources/${sourceId}/search?query=how%00now&topK=3`, undefined, ["query"]);
		await expectRefused("POST", `/knowledge/sources/${sourceId}/documents/upload`, { filename: `notes${LONE_HIGH}.txt`, contentBase64: "aGk=" }, ["filename"]);
		await expectRefused("POST", `/knowledge/sources/${sourceId}/documents`, { filename: `notes${LONE_LOW}.txt`, contentType: "text/plain", byteSize: 2 }, ["filename"]);
	});

	it("in path and query parameters, on Express routes and on the runtime router", async () => {
		const get = async (path: string) => {
			const response = await platform.request("GET", path, { key: workspace.apiKey });
			return { status: response.status, body: await response.json() };
		};
		const path = await get(`/knowledge/sources/ks_%00x/documents`);
		expect(path.status).toBe(400);
		expect(path.body.fields).toContainEqual({ field: "sourceId", issue: ISSUE });
		const query = await get(`/knowledge/sources?cursor=abc%00`);
		expect(query.status).toBe(400);
		expect(query.body.fields).toContainEqual({ field: "cursor", issue: ISSUE });
		const slug = await platform.request("POST", "/runtime/assistants/bot%00/stream", { key: workspace.apiKey, body: { input: "hi" } });
		expect(slug.status).toBe(400);
		expect((await slug.json()).fields).toContainEqual({ field: "slug", issue: ISSUE });
	});

	it("in headers: Node's parser refuses a NUL in Idempotency-Key, answered in the envelope", async () => {
		const request = [
			"POST /knowledge/sources HTTP/1.1",
			`Host: 127.0.0.1`,
			`Authorization: Bearer ${workspace.apiKey}`,
			"Content-Type: application/json",
			"Idempotency-Key: key\u0000one",
			"Content-Length: 12",
			"",
			'{"name":"x"}',
		].join("\r\n");
		const before = await rowCounts();
		const answer = await rawExchange(platform.url, request);
		expect(answer.closedByServer).toBe(true);
		expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
		expect(answer.head).toMatch(/\r\nconnection: close\r\n/i);
		expect(JSON.parse(answer.body)).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
		expect(await rowCounts()).toEqual(before);
	});

	it("accepts well-formed text: emoji (surrogate pairs), other control characters, non-Latin scripts", async () => {
		const response = await platform.request("POST", "/knowledge/sources", { key: workspace.apiKey, body: { name: "Ünïcode 😀 \u0001 тест", description: "日本語\t\u007f" } });
		expect(response.status).toBe(201);
		expect((await response.json()).name).toBe("Ünïcode 😀 \u0001 тест");
	});
});
