import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddingError } from "../../server/knowledge/embed/embedder";
import { DEFAULT_KNOWLEDGE_OPTIONS } from "../../server/knowledge/options";
import { WARM_UP_SEARCHES } from "../../server/knowledge/search/search-warm-up";
import { ProviderEmbedder } from "../../server/knowledge/embed/provider-embedder";
import { ProviderError } from "../../server/providers/provider-error";
import { deleteProviderCredential } from "../../server/modules/provider-credentials/delete-provider-credential";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "../helpers/embeddings-stand-in";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { search, searchPath, uploadDocument, waitForDocument } from "./knowledge-helpers";

describe("provider embeddings (OpenAI wire format)", () => {
	let embeddings: EmbeddingsStandIn;
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let sourceId: string;

	beforeAll(async () => {
		embeddings = await startEmbeddingsStandIn({ dimensions: 32 });
		platform = await startTestPlatform();
		workspace = await platform.createWorkspace();
		await setProviderCredential(platform.operator(), {
			workspaceId: workspace.workspaceId,
			provider: "openai",
			apiKey: "sk-stand-in-0123456789",
			baseUrl: embeddings.baseUrl,
		});
		const response = await platform.request("POST", "/knowledge/sources", {
			key: workspace.apiKey,
			body: { name: "openai docs", embeddingModel: { provider: "openai", model: "text-embedding-3-small" } },
		});
		expect(response.status).toBe(201);
		sourceId = ((await response.json()) as { id: string }).id;
	});
	afterAll(async () => {
		await platform?.stop();
		await embeddings?.close();
	});

	const requestsFor = (text: string) => embeddings.requests.filter((request) => request.body.input?.some((input) => input.includes(text)));

	it("embeds chunks and queries with the workspace's credential, recording the model's dimensions", async () => {
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "moths.txt", "Silver moths navigate by the lighthouse of Wrenfield.");
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY", chunkCount: 1 });
		const [ingestion] = requestsFor("Silver moths");
		expect(ingestion).toMatchObject({ authorization: "Bearer sk-stand-in-0123456789", status: 200, body: { model: "text-embedding-3-small" } });
		const source = await (await platform.request("GET", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey })).json();
		expect(source).toMatchObject({ embeddingModel: { provider: "openai", model: "text-embedding-3-small", dimensions: 32 } });

		const [hit] = await search(platform, workspace.apiKey, sourceId, { query: "silver moths Wrenfield", topK: 1 });
		expect(hit).toMatchObject({ documentId: document.id });
		expect(embeddings.requests.at(-1)?.body).toEqual({ model: "text-embedding-3-small", input: ["silver moths Wrenfield"] });
	});

	it("retries a 429, honouring Retry-After, and the document becomes READY", async () => {
		embeddings.script({ kind: "error", status: 429, message: "Rate limit reached for requests", headers: { "retry-after": "1" } });
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "rate.txt", "Patient walruses queue politely at the Gullhaven ferry.");
		expect(await waitForDocument(platform, workspace.apiKey, sourceId, document.id)).toMatchObject({ status: "READY", chunkCount: 1 });
		const attempts = requestsFor("Patient walruses");
		expect(attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
		expect(attempts[1].receivedAt - attempts[0].receivedAt).toBeGreaterThanOrEqual(900);
	});

	it("fails the document with a reason when the provider answers vectors of another size, storing none", async () => {
		embeddings.script({ kind: "vectors", dimensions: 12 });
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "drift.txt", "Copper foxes recite tide tables in Marlowe harbour.");
		const failed = await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
		expect(failed.status).toBe("FAILED");
		expect(failed.failureReason).toBe("openai/text-embedding-3-small returned 12-dimensional vectors but this source holds 32-dimensional ones");
		const chunks = await platform.orm.em.fork().getConnection().execute("select id from knowledge_chunks where document_id = ?", [document.id]);
		expect(chunks).toEqual([]);
	});

	it("fails the document without retrying when the provider rejects the credential", async () => {
		embeddings.script({ kind: "error", status: 401, message: "Incorrect API key provided" });
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "denied.txt", "Lilac badgers guard the Thornbury archive.");
		const failed = await waitForDocument(platform, workspace.apiKey, sourceId, document.id);
		expect(failed).toMatchObject({ status: "FAILED", failureReason: "openai/text-embedding-3-small rejected the workspace's credential (HTTP 401)" });
		expect(requestsFor("Lilac badgers").map((request) => request.status)).toEqual([401]);
	});

	it("gives up on a provider that does not answer within its timeout, as a timeout (a search answers 504)", async () => {
		embeddings.script({ kind: "hang" });
		const embedder = new ProviderEmbedder({ provider: "openai", model: "text-embedding-3-small", apiKey: "sk-stand-in-0123456789", baseUrl: embeddings.baseUrl, fetch: platform.services.egress.fetch, timeoutMs: 300, attempts: 1 });
		const started = Date.now();
		const failure = await embedder.embed(["Amber herons count the hours"]).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(EmbeddingError);
		expect(failure).toMatchObject({ kind: "timeout", retryable: true, message: "openai/text-embedding-3-small did not answer within 0.3 s" });
		expect(Date.now() - started).toBeLessThan(3000);
		expect(new ProviderError((failure as EmbeddingError).kind, "openai", "").status).toBe(504);
	});

	it("answers a search whose query the provider cannot embed with the provider's failure, at once, and searches again once it can", async () => {
		const searchFor = async (query: string) => {
			const response = await platform.request("GET", searchPath(sourceId, { query, topK: 1 }), { key: workspace.apiKey });
			return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { code: string; message: string } };
		};
		embeddings.script({ kind: "error", status: 401, message: "Incorrect API key provided" });
		expect(await searchFor("silver moths rejected")).toMatchObject({
			status: 400,
			body: { code: "INVALID_REQUEST", message: "openai/text-embedding-3-small rejected the workspace's credential (HTTP 401)" },
		});

		// Rate limited: forwarded with the provider's Retry-After, after one request (no backoff while the caller waits).
		embeddings.script({ kind: "error", status: 429, message: "Rate limit reached for requests", headers: { "retry-after": "7" } });
		const started = Date.now();
		expect(await searchFor("silver moths limited")).toMatchObject({ status: 429, retryAfter: "7", body: { code: "RATE_LIMITED" } });
		expect(Date.now() - started).toBeLessThan(5000);
		expect(requestsFor("silver moths limited").map((request) => request.status)).toEqual([429]);
		// The other forms providers send: OpenAI's retry-after-ms, and an HTTP date (rounded up to whole seconds for the caller).
		embeddings.script({ kind: "error", status: 429, message: "Rate limit reached for requests", headers: { "retry-after-ms": "2500" } });
		expect(await searchFor("silver moths limited in milliseconds")).toMatchObject({ status: 429, retryAfter: "3", body: { code: "RATE_LIMITED" } });
		embeddings.script({ kind: "error", status: 429, message: "Rate limit reached for requests", headers: { "retry-after": new Date(Date.now() + 12_000).toUTCString() } });
		const dated = await searchFor("silver moths limited until a date");
		expect(dated).toMatchObject({ status: 429, body: { code: "RATE_LIMITED" } });
		expect(Number(dated.retryAfter)).toBeGreaterThanOrEqual(10);
		expect(Number(dated.retryAfter)).toBeLessThanOrEqual(12);

		embeddings.script({ kind: "error", status: 503, message: "The engine is currently overloaded" });
		const outage = await searchFor("silver moths outage");
		expect(outage).toMatchObject({ status: 502, body: { code: "INTERNAL_ERROR" } });
		expect(outage.body.message).toContain("openai/text-embedding-3-small answered HTTP 503");

		embeddings.script({ kind: "vectors", dimensions: 12 });
		expect(await searchFor("silver moths drift")).toMatchObject({
			status: 502,
			body: { code: "INTERNAL_ERROR", message: "openai/text-embedding-3-small returned 12-dimensional vectors but this source holds 32-dimensional ones" },
		});

		// The credential removed: the search says what to add; put back, the next search answers.
		await deleteProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai" });
		expect(await searchFor("silver moths")).toMatchObject({
			status: 400,
			body: { code: "INVALID_REQUEST", message: "The workspace has no openai credential any more; add one to embed with text-embedding-3-small" },
		});
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: embeddings.baseUrl });
		const [hit] = await search(platform, workspace.apiKey, sourceId, { query: "silver moths Wrenfield", topK: 1 });
		expect(hit.text).toContain("Silver moths");
	});

	it("spends none of the provider's embeddings on warming search's code (a builtin source of the same process warms it)", async () => {
		// Every source past the warm-up's threshold: three documents of words of their own, so each has words in a third of its chunks.
		const warming = await startTestPlatform({ knowledge: { ...DEFAULT_KNOWLEDGE_OPTIONS, searchWarmUpMinChunks: 2 } });
		try {
			const tenant = await warming.createWorkspace();
			await setProviderCredential(warming.operator(), { workspaceId: tenant.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: embeddings.baseUrl });
			const sourceEmbedding = async (provider: string, model: string) =>
				((await (await warming.request("POST", "/knowledge/sources", { key: tenant.apiKey, body: { name: provider, embeddingModel: { provider, model } } })).json()) as { id: string }).id;
			const providerSource = await sourceEmbedding("openai", "text-embedding-3-small");
			const builtinSource = await sourceEmbedding("builtin", "builtin-hash-v1");
			const texts = ["Amber herons wade through the estuary mud.", "Copper kettles whistle in the bakery kitchen.", "Violet comets streak above the northern fjords."];
			for (const source of [providerSource, builtinSource]) {
				for (const [index, text] of texts.entries()) await waitForDocument(warming, tenant.apiKey, source, (await uploadDocument(warming, tenant.apiKey, source, `part-${index}.txt`, text)).id);
			}
			const { warmUp } = warming.services.search;

			const providerRequests = embeddings.requests.length;
			expect(await search(warming, tenant.apiKey, providerSource, { query: "amber herons", topK: 1 })).toHaveLength(1);
			await warmUp.finished();
			expect(warmUp.searches).toBe(0);
			expect(embeddings.requests.length).toBe(providerRequests + 1);

			expect(await search(warming, tenant.apiKey, builtinSource, { query: "copper kettles", topK: 1 })).toHaveLength(1);
			await warmUp.finished();
			expect(warmUp.searches).toBe(WARM_UP_SEARCHES);
			expect(embeddings.requests.length).toBe(providerRequests + 1);
		} finally {
			await warming.stop();
		}
	});
});
