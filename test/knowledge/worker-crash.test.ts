import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProviderCredential } from "../../server/modules/provider-credentials/set-provider-credential";
import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "../helpers/embeddings-stand-in";
import { startTestPlatform, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { startWorkerProcess, stopWorkerProcess } from "../helpers/worker-process";
import { eventually, uploadDocument, waitForDocument } from "./knowledge-helpers";

/**
 * Longer than a parser process takes to start under tsx on a loaded machine (its first document
 * waits for it), so only the killed worker's claim goes stale.
 */
const startWorker = (platform: TestPlatform) => startWorkerProcess(platform, { KNOWLEDGE_PROCESSING_TIMEOUT_SECONDS: "8" });

describe("a worker killed mid-document", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let embeddings: EmbeddingsStandIn;
	const workers: ChildProcess[] = [];

	beforeAll(async () => {
		// No in-process worker: only the spawned ones ingest. The sweeper still runs here.
		platform = await startTestPlatform({ knowledge: { worker: "off", processingTimeoutSeconds: 8, sweepIntervalSeconds: 0.5 } });
		workspace = await platform.createWorkspace();
		// The source embeds through a provider stand-in, so a test can hold a worker mid-document.
		embeddings = await startEmbeddingsStandIn();
		await setProviderCredential(platform.operator(), { workspaceId: workspace.workspaceId, provider: "openai", apiKey: "sk-stand-in-0123456789", baseUrl: embeddings.baseUrl });
	});
	afterAll(async () => {
		for (const worker of workers) await stopWorkerProcess(worker, "SIGKILL");
		await embeddings?.close();
		await platform?.stop();
	});

	it("is re-queued by the sweeper and a clean run leaves no duplicate chunks", async () => {
		const created = await platform.request("POST", "/knowledge/sources", {
			key: workspace.apiKey,
			body: { name: "Orreries", embeddingModel: { provider: "openai", model: "text-embedding-3-small" } },
		});
		const sourceId = ((await created.json()) as { id: string }).id;
		const text = Array.from({ length: 120 }, (_, index) => `Paragraph ${index} explains how the brass orrery number ${index} is wound and oiled each spring.`).join("\n\n");
		const document = await uploadDocument(platform, workspace.apiKey, sourceId, "orrery.txt", text);

		// The embedder never answers the first worker, so it is killed mid-document, PROCESSING.
		embeddings.script({ kind: "hang" });
		const embedding = embeddings.nextRequest();
		const stuck = startWorker(platform);
		workers.push(stuck);
		await embedding;
		expect((await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["PROCESSING"], 5_000)).status).toBe("PROCESSING");
		await stopWorkerProcess(stuck, "SIGKILL");

		// The sweeper notices the stale claim and re-queues it as attempt 2.
		const connection = platform.orm.em.fork().getConnection();
		await eventually(async () => {
			const [row] = await connection.execute("select status, attempts from knowledge_documents where id = ?", [document.id]);
			return row.status === "PENDING" && row.attempts === 2;
		}, 30_000, "the sweeper to re-queue the document");

		const clean = startWorker(platform);
		workers.push(clean);
		const ready = await waitForDocument(platform, workspace.apiKey, sourceId, document.id, ["READY", "FAILED"], 30_000);
		expect(ready.status).toBe("READY");

		const chunks: { ordinal: number; text: string }[] = await connection.execute("select ordinal, text from knowledge_chunks where document_id = ? order by ordinal", [document.id]);
		expect(chunks.length).toBe(ready.chunkCount);
		expect(chunks.map((chunk) => chunk.ordinal)).toEqual(chunks.map((_, index) => index));
		expect(new Set(chunks.map((chunk) => chunk.text)).size).toBe(chunks.length);

		// The same text ingested once, cleanly, yields exactly as many chunks.
		const reference = await uploadDocument(platform, workspace.apiKey, sourceId, "orrery-copy.txt", text);
		expect((await waitForDocument(platform, workspace.apiKey, sourceId, reference.id, ["READY", "FAILED"], 30_000)).chunkCount).toBe(ready.chunkCount);

		// The dead worker's job is stale (attempt 1): even if pg-boss hands it out again it changes nothing.
		const [{ count }] = await connection.execute("select count(*)::int as count from knowledge_chunks where document_id = ?", [document.id]);
		expect(count).toBe(ready.chunkCount);
		await stopWorkerProcess(clean, "SIGTERM");
	}, 90_000);
});
