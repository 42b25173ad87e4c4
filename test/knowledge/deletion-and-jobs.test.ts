import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INGESTION_JOB } from "../../server/jobs/ingestion-job";
import { createPlatformServices } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, search, searchPath, uploadDocument, waitForDocument } from "./knowledge-helpers";

describe("deleting a source leaves nothing behind", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;

	beforeAll(async () => {
		// No in-process worker, so a job can be caught still queued; a worker is started on demand below.
		platform = await startTestPlatform({ knowledge: { worker: "off" } });
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await platform?.stop();
	});

	const count = async (sql: string, parameters: unknown[]) => {
		const [row] = await platform.orm.em.fork().getConnection().execute(sql, parameters);
		return Number(row.count);
	};

	it("removes documents, chunks, vectors, stored bytes and queued jobs", async () => {
		const sourceId = await createSource(platform, workspace.apiKey, "doomed");
		const keep = await createSource(platform, workspace.apiKey, "kept");
		// An ingestion worker process's services, as `npm run worker` builds them.
		const worker = await createPlatformServices(
			{ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, publicBaseUrl: () => platform.url, dataDirectory: platform.dataDirectory, logger: createLogger("silent") },
			"worker",
		);
		const ready = await uploadDocument(platform, workspace.apiKey, sourceId, "ready.md", "# Tides\n\nThe moon pulls the indigo tides of Marrow Sound.");
		const kept = await uploadDocument(platform, workspace.apiKey, keep, "kept.md", "The indigo tides of the kept source stay.");
		await waitForDocument(platform, workspace.apiKey, sourceId, ready.id);
		await waitForDocument(platform, workspace.apiKey, keep, kept.id);
		await worker.close();

		const queued = await uploadDocument(platform, workspace.apiKey, sourceId, "queued.txt", "Still waiting for a worker.");
		const presigned = await platform.request("POST", `/knowledge/sources/${sourceId}/documents`, {
			key: workspace.apiKey,
			body: { filename: "later.txt", contentType: "text/plain", byteSize: 5 },
		});
		expect(presigned.status).toBe(201);
		expect((await search(platform, workspace.apiKey, sourceId, { query: "indigo tides Marrow Sound" }))[0].documentId).toBe(ready.id);

		const sourceDirectory = join(platform.dataDirectory, "objects", "workspaces", workspace.workspaceId, "sources", sourceId);
		expect(readdirSync(sourceDirectory).sort()).toEqual([queued.id, ready.id].sort());
		expect(await count("select count(*) from knowledge_chunks where source_id = ? and embedding is not null", [sourceId])).toBeGreaterThan(0);
		expect(await count("select count(*) from pgboss.job where name = ? and data->>'sourceId' = ? and state = 'created'", [INGESTION_JOB.name, sourceId])).toBe(1);

		const response = await platform.request("DELETE", `/knowledge/sources/${sourceId}`, { key: workspace.apiKey });
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ id: sourceId, deleted: true });

		expect(await count("select count(*) from knowledge_sources where id = ?", [sourceId])).toBe(0);
		expect(await count("select count(*) from knowledge_documents where source_id = ?", [sourceId])).toBe(0);
		expect(await count("select count(*) from knowledge_chunks where source_id = ?", [sourceId])).toBe(0);
		expect(await count("select count(*) from pgboss.job where data->>'sourceId' = ?", [sourceId])).toBe(0);
		expect(existsSync(sourceDirectory)).toBe(false);
		expect((await platform.request("GET", searchPath(sourceId, { query: "indigo" }), { key: workspace.apiKey })).status).toBe(404);

		// The other source is untouched.
		expect(await count("select count(*) from knowledge_chunks where source_id = ?", [keep])).toBeGreaterThan(0);
		expect((await search(platform, workspace.apiKey, keep, { query: "indigo tides" }))[0].documentId).toBe(kept.id);
	});

	it("enqueues a job only when the transaction that calls for it commits", async () => {
		const { jobs } = platform.services;
		const job = (documentId: string) => ({ documentId, sourceId: "ks_transactional", attempt: 1 });
		await expect(
			platform.orm.em.fork().transactional(async (tx) => {
				await jobs.sendInTransaction(INGESTION_JOB, tx, job("doc_rolled_back"));
				throw new Error("the state change failed");
			}),
		).rejects.toThrow("the state change failed");
		await platform.orm.em.fork().transactional(async (tx) => {
			await jobs.sendInTransaction(INGESTION_JOB, tx, job("doc_committed"));
		});
		expect(await count("select count(*) from pgboss.job where data->>'documentId' = ?", ["doc_rolled_back"])).toBe(0);
		expect(await count("select count(*) from pgboss.job where data->>'documentId' = ?", ["doc_committed"])).toBe(1);
	});
});
