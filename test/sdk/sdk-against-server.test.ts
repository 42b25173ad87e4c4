/**
 * The SDK against the real platform (real PostgreSQL, real HTTP server) with the model provider
 * stood in: every error class comes from a real answer (or a real transport failure), lists page,
 * uploads are ingested, streams parse, and a retried POST runs once on the server.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
	APIConnectionError,
	APIError,
	APITimeoutError,
	APIUserAbortError,
	AuthenticationError,
	BadRequestError,
	type ClientOptions,
	ConflictError,
	DocumentFailedError,
	GenerationStreamError,
	NotFoundError,
	operations,
	PermissionDeniedError,
	PlatformClient,
	PlatformError,
	RateLimitError,
	ServerError,
	toFile,
} from "../../sdk/src/index";
import { fileFromPath } from "../../sdk/src/node";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { type ProviderStandIn, refusedPortUrl, startProviderStandIn } from "../helpers/provider-stand-in";
import { awayFromMinuteBoundary } from "../helpers/rate-limit-window";
import { createAssistant } from "../../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../../server/modules/assistants/publish-assistant-version";
import { updateAssistantDraft } from "../../server/modules/assistants/update-assistant-draft";
import { connectAs, userPrincipal } from "../mcp/mcp-helpers";
import { workspaceWithCredential } from "../runtime/runtime-fixtures";

/** The limit of the one workspace whose key is driven past it; the others run unlimited (the test platform's default). */
const RATE_LIMIT_PER_MINUTE = 20;

let platform: TestPlatform;
let standIn: ProviderStandIn;
let workspace: TestWorkspace;

beforeAll(async () => {
	platform = await startTestPlatform();
	standIn = await startProviderStandIn();
	workspace = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
});
afterAll(async () => {
	await standIn?.close();
	await platform?.stop();
});
beforeEach(() => standIn.reset());

function clientFor(apiKey: string, options: ClientOptions = {}): PlatformClient {
	return new PlatformClient({ apiKey, baseURL: platform.url, maxRetries: 0, ...options });
}

const EXECUTE = { providerName: "openai" as const, model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Say hello." }], config: { maxRetries: 0 } };

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
	try {
		await promise;
	} catch (error) {
		return error;
	}
	throw new Error("expected a rejection");
}

describe("resources against the real server", () => {
	it("creates, retrieves and deletes a source, with the response and request id on demand", async () => {
		const client = clientFor(workspace.apiKey);
		const created = await client.knowledge.sources.create({ name: "SDK source", description: "made by the SDK" });
		expect(created).toMatchObject({ id: expect.stringMatching(/^ks_/), name: "SDK source", documentCount: 0 });
		const { data, response, requestId } = await client.knowledge.sources.retrieve(created.id).withResponse();
		expect(data).toEqual(created);
		expect(response.status).toBe(200);
		expect(requestId).toMatch(/^req_/);
		expect(requestId).toBe(response.headers.get("x-request-id"));
		expect(await client.knowledge.sources.delete(created.id)).toEqual({ id: created.id, deleted: true });
		await expect(client.knowledge.sources.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
	});

	it("auto-paginates: for await walks every page; a page, its successor and iterPages are there too", async () => {
		const own = await platform.createWorkspace();
		const client = clientFor(own.apiKey);
		const names = ["one", "two", "three", "four", "five"];
		for (const name of names) await client.knowledge.sources.create({ name });

		const seen: string[] = [];
		for await (const source of client.knowledge.sources.list({ limit: 2 })) seen.push(source.name);
		expect(seen).toEqual([...names].reverse());

		const first = await client.knowledge.sources.list({ limit: 2 }).page();
		expect(first.data.map((source) => source.name)).toEqual(["five", "four"]);
		expect(first.hasNextPage()).toBe(true);
		expect(first.requestId).toMatch(/^req_/);
		const second = await first.getNextPage();
		expect(second.data.map((source) => source.name)).toEqual(["three", "two"]);

		const pageSizes: number[] = [];
		for await (const page of client.knowledge.sources.list({ limit: 2 }).iterPages()) pageSizes.push(page.data.length);
		expect(pageSizes).toEqual([2, 2, 1]);
	});

	it("the low-level operations take the client as their last argument, without casts", async () => {
		const client = clientFor(workspace.apiKey);
		const health = await operations.getHealth({ client });
		expect(health).toEqual({ status: "ok", database: "ok" });
		const page = await operations.listKnowledgeSources({ limit: 1 }, { client });
		expect(page).toMatchObject({ data: expect.any(Array), hasMore: expect.any(Boolean) });
		const { requestId } = await operations.listKnowledgeSources({ limit: 1 }, { client }).withResponse();
		expect(requestId).toMatch(/^req_/);
	});
});

describe("every error class, from a real answer", () => {
	it("PlatformError: a client without a key fails at once", () => {
		expect(() => new PlatformClient({ apiKey: "", baseURL: platform.url })).toThrow(PlatformError);
	});

	it("BadRequestError: VALIDATION_ERROR with the offending fields", async () => {
		const error = (await rejectionOf(clientFor(workspace.apiKey).knowledge.sources.create({ name: "" }))) as BadRequestError;
		expect(error).toBeInstanceOf(BadRequestError);
		expect(error.status).toBe(400);
		expect(error.code).toBe("VALIDATION_ERROR");
		expect(error.fields).toEqual([{ field: "name", issue: expect.any(String) }]);
		expect(error.requestId).toMatch(/^req_/);
	});

	it("AuthenticationError: INVALID_CREDENTIALS for an unknown key", async () => {
		const error = (await rejectionOf(clientFor(`csk_live_${"z".repeat(43)}`).knowledge.sources.list())) as AuthenticationError;
		expect(error).toBeInstanceOf(AuthenticationError);
		expect(error.code).toBe("INVALID_CREDENTIALS");
	});

	it("PermissionDeniedError: FORBIDDEN for a key without the scope", async () => {
		const runtimeOnly = await workspace.createKey(["runtime:execute"]);
		const error = (await rejectionOf(clientFor(runtimeOnly.key).knowledge.sources.list())) as PermissionDeniedError;
		expect(error).toBeInstanceOf(PermissionDeniedError);
		expect(error.code).toBe("FORBIDDEN");
	});

	it("NotFoundError: NOT_FOUND and ASSISTANT_NOT_FOUND", async () => {
		const client = clientFor(workspace.apiKey);
		const missingSource = (await rejectionOf(client.knowledge.sources.retrieve("ks_missing"))) as NotFoundError;
		expect(missingSource).toBeInstanceOf(NotFoundError);
		expect(missingSource.code).toBe("NOT_FOUND");
		const missingAssistant = (await rejectionOf(client.assistants.run("no-such-assistant", "Hello"))) as NotFoundError;
		expect(missingAssistant).toBeInstanceOf(NotFoundError);
		expect(missingAssistant.code).toBe("ASSISTANT_NOT_FOUND");
	});

	it("ConflictError: IDEMPOTENCY_KEY_CONFLICT when a key is reused with another body", async () => {
		const client = clientFor(workspace.apiKey);
		const idempotencyKey = `conflict-${Date.now()}`;
		await client.knowledge.sources.create({ name: "first body" }, { idempotencyKey });
		const error = (await rejectionOf(client.knowledge.sources.create({ name: "second body" }, { idempotencyKey }))) as ConflictError;
		expect(error).toBeInstanceOf(ConflictError);
		expect(error.code).toBe("IDEMPOTENCY_KEY_CONFLICT");
	});

	it("APIError itself for a status without a subclass: 413 PAYLOAD_TOO_LARGE", async () => {
		const huge = { ...EXECUTE, messages: Array.from({ length: 9 }, () => ({ role: "user" as const, content: "x".repeat(1_000_000) })) };
		const error = (await rejectionOf(clientFor(workspace.apiKey).runtime.execute(huge))) as APIError;
		expect(error.constructor).toBe(APIError);
		expect(error.status).toBe(413);
		expect(error.code).toBe("PAYLOAD_TOO_LARGE");
	});

	it("RateLimitError: RATE_LIMITED past the key's requests per minute, with Retry-After", async () => {
		const limited = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		await platform.orm.em.fork().getConnection().execute("update workspaces set rate_limit_per_minute = ? where id = ?", [RATE_LIMIT_PER_MINUTE, limited.workspaceId]);
		const client = clientFor(limited.apiKey);
		await awayFromMinuteBoundary();
		for (let index = 0; index < RATE_LIMIT_PER_MINUTE; index++) await client.runtime.execute(EXECUTE);
		const error = (await rejectionOf(client.runtime.execute(EXECUTE))) as RateLimitError;
		expect(error).toBeInstanceOf(RateLimitError);
		expect(error.code).toBe("RATE_LIMITED");
		expect(Number(error.headers.get("retry-after"))).toBeGreaterThan(0);
	});

	it("ServerError: the provider failing is a 5xx", async () => {
		standIn.script({ kind: "error", status: 500, type: "server_error" });
		const error = (await rejectionOf(clientFor(workspace.apiKey).runtime.execute(EXECUTE))) as ServerError;
		expect(error).toBeInstanceOf(ServerError);
		expect(error.status).toBeGreaterThanOrEqual(500);
		expect(standIn.requests).toHaveLength(1);
	});

	it("APIConnectionError: nothing listens at the base URL", async () => {
		const error = await rejectionOf(new PlatformClient({ apiKey: workspace.apiKey, baseURL: new URL(await refusedPortUrl()).origin, maxRetries: 0 }).health());
		expect(error).toBeInstanceOf(APIConnectionError);
		expect(error).not.toBeInstanceOf(APIError);
	});

	it("APITimeoutError: the server answers later than timeoutMs", async () => {
		standIn.script({ kind: "completion", content: "late", delayMs: 3_000 });
		const error = await rejectionOf(clientFor(workspace.apiKey, { timeoutMs: 300 }).runtime.execute(EXECUTE));
		expect(error).toBeInstanceOf(APITimeoutError);
	});

	it("APIUserAbortError: aborting a stream in flight, which cancels the provider request too", async () => {
		standIn.script({ kind: "completion", content: ["first", "never"], hangAfterChunks: 1 });
		const controller = new AbortController();
		const stream = await clientFor(workspace.apiKey).runtime.stream(EXECUTE, { signal: controller.signal });
		const error = await rejectionOf(
			(async () => {
				for await (const event of stream) if (event.event === "delta") controller.abort();
			})(),
		);
		expect(error).toBeInstanceOf(APIUserAbortError);
		await standIn.waitForClientClose(standIn.requests[0]);
	});

	it("GenerationStreamError: the provider fails after the stream opened", async () => {
		standIn.script({ kind: "completion", content: ["one", "two", "three"], failAfterChunks: 2 });
		const stream = await clientFor(workspace.apiKey).runtime.stream(EXECUTE);
		const error = (await rejectionOf(stream.text())) as GenerationStreamError;
		expect(error).toBeInstanceOf(GenerationStreamError);
		expect(error).not.toBeInstanceOf(APIError);
		expect(error.code).toEqual(expect.any(String));
		expect(typeof error.retryable).toBe("boolean");
	});

	it("DocumentFailedError: ingestion ends FAILED, with the server's reason", async () => {
		const client = clientFor(workspace.apiKey);
		const source = await client.knowledge.sources.create({ name: "Failing" });
		const error = (await rejectionOf(client.knowledge.documents.uploadAndPoll(source.id, await toFile("", "empty.txt")))) as DocumentFailedError;
		expect(error).toBeInstanceOf(DocumentFailedError);
		expect(error.reason).toBe("The file is empty");
		expect(error.document.status).toBe("FAILED");
	});
});

describe("streams, uploads and retries against the real server", () => {
	it("a stream of 1,000 deltas reads back as the same text", async () => {
		const pieces = Array.from({ length: 1000 }, (_, index) => `${index}:é☃𝄞 `);
		standIn.script({ kind: "completion", content: pieces });
		const { data: stream, requestId } = await clientFor(workspace.apiKey).runtime.stream(EXECUTE).withResponse();
		expect(requestId).toMatch(/^req_/);
		const result = await stream.finalResult();
		expect(result.text).toBe(pieces.join(""));
		expect(result.finishReason).toBe("stop");
		expect(result.usage?.outputTokens).toBe(1000);
	});

	it("a POST whose answer was lost is retried with the same Idempotency-Key and runs once on the server", async () => {
		let calls = 0;
		// The first answer is dropped after the server has handled the request, as a broken connection would.
		const losingFetch: typeof fetch = async (input, init) => {
			calls += 1;
			const response = await fetch(input, init);
			if (calls === 1) {
				await response.arrayBuffer();
				throw new TypeError("fetch failed: connection reset after the request was sent");
			}
			return response;
		};
		standIn.script({ kind: "completion", content: "only once" });
		const client = clientFor(workspace.apiKey, { fetch: losingFetch, maxRetries: 2 });
		const result = await client.runtime.execute(EXECUTE);
		expect(result.message.content).toBe("only once");
		expect(calls).toBe(2);
		expect(standIn.requests).toHaveLength(1);

		const own = await platform.createWorkspace();
		calls = 0;
		const sources = new PlatformClient({ apiKey: own.apiKey, baseURL: platform.url, fetch: losingFetch, maxRetries: 2 });
		const created = await sources.knowledge.sources.create({ name: "created once" });
		const listed = [];
		for await (const source of clientFor(own.apiKey).knowledge.sources.list()) listed.push(source.id);
		expect(listed).toEqual([created.id]);
	});

	it("a deployed assistant's answer names its version and trace, on results, withResponse(), streams and errors; get_trace finds the trace", async () => {
		const own = await workspaceWithCredential(platform, "openai", standIn.baseUrl);
		const context = () => platform.operator();
		await createAssistant(context(), { workspaceId: own.workspaceId, slug: "sdk-bot", name: "SDK bot" });
		for (const model of ["model-one", "model-two"]) {
			await updateAssistantDraft(context(), { workspaceId: own.workspaceId, slug: "sdk-bot", patch: { model, generation: { maxRetries: 0 } } });
			const { version } = await createAssistantVersion(context(), { workspaceId: own.workspaceId, slug: "sdk-bot" });
			await publishAssistantVersion(context(), { workspaceId: own.workspaceId, slug: "sdk-bot", version });
		}
		const client = clientFor(own.apiKey);
		const session = await connectAs(platform, userPrincipal(own.userId, { organizationId: own.organizationId, scopes: ["mcp:read"] }));
		const getTrace = (traceId: string) => session.call<{ id: string; versionId: string; output: string; errorCode: string | null }>("get_trace", { workspaceId: own.workspaceId, traceId });
		try {
			standIn.script({ kind: "completion", content: "answer" });
			const { data, traceId, requestId } = await client.assistants.run("sdk-bot", "Hello").withResponse();
			expect(data.assistant).toEqual({ slug: "sdk-bot", version: 2, environment: "production" });
			expect(data.traceId).toMatch(/^trace_/);
			expect(traceId).toBe(data.traceId);
			expect(requestId).toMatch(/^req_/);
			expect(await getTrace(data.traceId)).toMatchObject({ id: data.traceId, output: "answer" });

			standIn.script({ kind: "completion", content: ["stre", "amed"] });
			const stream = await client.assistants.stream("sdk-bot", "Hello");
			expect([stream.assistantVersion, stream.assistantEnvironment]).toEqual([2, "production"]);
			const result = await stream.finalResult();
			expect(result).toMatchObject({ text: "streamed", traceId: stream.traceId, assistant: { slug: "sdk-bot", version: 2, environment: "production" } });
			expect(await getTrace(result.traceId as string)).toMatchObject({ output: "streamed" });

			standIn.script({ kind: "completion", content: "ad hoc" });
			const adHoc = await client.runtime.execute(EXECUTE);
			expect((await getTrace(adHoc.traceId)).output).toBe("ad hoc");

			standIn.script({ kind: "error", status: 500 });
			const failure = (await rejectionOf(client.assistants.run("sdk-bot", "Hello"))) as ServerError;
			expect(failure).toBeInstanceOf(ServerError);
			expect(await getTrace(failure.traceId as string)).toMatchObject({ errorCode: "INTERNAL_ERROR" });
		} finally {
			await session.close();
		}
	});

	it("uploads a document from a string, a path and a read stream, waits until READY and finds it", async () => {
		const client = clientFor(workspace.apiKey);
		// The built-in embedder: the workspace's OpenAI credential points at a stand-in that only chats.
		const source = await client.knowledge.sources.create({ name: "Handbook", embeddingModel: { provider: "builtin", model: "builtin-hash-v1" } });
		const fromString = await client.knowledge.documents.uploadAndPoll(source.id, await toFile("# Returns\nReturns are accepted within 30 days.", "returns.md"));
		expect(fromString).toMatchObject({ status: "READY", filename: "returns.md", contentType: "text/markdown" });

		const directory = await mkdtemp(join(tmpdir(), "sdk-upload-"));
		try {
			const path = join(directory, "shipping.txt");
			await writeFile(path, "Shipping takes three business days.");
			const fromPath = await client.knowledge.documents.uploadAndPoll(source.id, await fileFromPath(path));
			expect(fromPath).toMatchObject({ status: "READY", filename: "shipping.txt", contentType: "text/plain" });
			// The presigned flow, from a read stream named by its path.
			const pending = await client.knowledge.documents.uploadFile(source.id, createReadStream(path));
			expect(pending.status).toBe("PENDING");
			expect(await client.knowledge.documents.waitUntilReady(source.id, pending.id)).toMatchObject({ status: "READY", byteSize: 35 });
		} finally {
			await rm(directory, { recursive: true, force: true });
		}

		const hits = await client.knowledge.sources.search(source.id, { query: "how long do returns take" });
		expect(hits.data[0]).toMatchObject({ filename: "returns.md", text: expect.stringContaining("30 days") });
		const documents = [];
		for await (const document of client.knowledge.documents.list(source.id, { limit: 1 })) documents.push(document.filename);
		expect(documents.sort()).toEqual(["returns.md", "shipping.txt", "shipping.txt"]);
	});
});
