import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformServices, type ServicesHandle } from "../../server/platform";
import { createLogger } from "../../server/shared/logger";
import { startTestPlatform, TEST_SECRET_KEY, type TestPlatform, type TestWorkspace } from "../helpers/platform";
import { createSource, eventually, uploadDocument, waitForDocument } from "./knowledge-helpers";

/**
 * The ingestion queue is fair across sources: documents are uploaded through the API while no
 * worker runs (so the whole batch is queued), then one worker process, as `npm run worker` starts
 * it, works through the queue. Order is read from each document's processed_at.
 */
describe("ingestion queue", () => {
	let platform: TestPlatform;
	let workspace: TestWorkspace;
	let worker: ServicesHandle | undefined;

	beforeAll(async () => {
		platform = await startTestPlatform({ knowledge: { worker: "off" } });
		workspace = await platform.createWorkspace();
	});
	afterAll(async () => {
		await worker?.close();
		await platform?.stop();
	});

	const stopWorker = async () => {
		await worker?.close();
		worker = undefined;
	};
	const startWorker = async () => {
		await stopWorker();
		worker = await createPlatformServices(
			{ databaseUrl: platform.databaseUrl, secretKey: TEST_SECRET_KEY, publicBaseUrl: () => platform.url, dataDirectory: platform.dataDirectory, logger: createLogger("silent") },
			"worker",
		);
	};
	/** Uploads `count` small text documents to the source, eight requests at a time, as a client with a batch would. */
	const uploadBatch = async (sourceId: string, count: number, label: string) => {
		let next = 0;
		await Promise.all(
			Array.from({ length: 8 }, async () => {
				for (let index = next++; index < count; index = next++) {
					await uploadDocument(platform, workspace.apiKey, sourceId, `${label}-${index}.txt`, `${label} report ${index}: wind tunnel measurements of a swept wing at Mach ${index / 10}.`);
				}
			}),
		);
	};
	const processingOrder = async (sourceIds: string[]) => {
		const rows: { source_id: string; id: string }[] = await platform.orm.em
			.fork()
			.getConnection()
			.execute("select source_id, id from knowledge_documents where source_id in (?) and status = 'READY' order by processed_at, id", [sourceIds]);
		return rows;
	};

	it("does not keep a single document of another source waiting behind a large batch", async () => {
		const batch = await createSource(platform, workspace.apiKey, "large batch");
		const other = await createSource(platform, workspace.apiKey, "single document");
		await uploadBatch(batch, 150, "batch");
		const single = await uploadDocument(platform, workspace.apiKey, other, "single.txt", "A single document about the boundary layer of a flat plate.");

		await startWorker();
		await waitForDocument(platform, workspace.apiKey, other, single.id, ["READY"], 60_000);
		const order = await processingOrder([batch, other]);
		const before = order.findIndex((row) => row.id === single.id);
		// First come, first served would put it after all 150. It waits only for the batch's
		// documents that were due before it was uploaded (one per second the upload took), plus
		// what the worker's two slots had already taken.
		const [{ due }]: { due: number }[] = await platform.orm.em
			.fork()
			.getConnection()
			.execute("select count(*)::int as due from knowledge_documents where source_id = ? and ingestion_slot <= (select ingestion_slot from knowledge_documents where id = ?)", [batch, single.id]);
		expect(before).toBeLessThanOrEqual(due + 2);
		expect(before).toBeLessThan(75);

		await eventually(async () => (await processingOrder([batch])).length === 150 || undefined, 120_000, "the whole batch READY");
		await stopWorker();
	}, 240_000);

	it("lets two sources with batches take turns", async () => {
		const first = await createSource(platform, workspace.apiKey, "first batch");
		const second = await createSource(platform, workspace.apiKey, "second batch");
		await uploadBatch(first, 40, "first");
		await uploadBatch(second, 40, "second");

		await startWorker();
		await eventually(async () => (await processingOrder([first, second])).length === 80 || undefined, 120_000, "both batches READY");
		await stopWorker();
		const order = await processingOrder([first, second]);
		// Served in upload order, the second source would wait for all 40 of the first.
		const secondInFirstHalf = order.slice(0, 40).filter((row) => row.source_id === second).length;
		expect(secondInFirstHalf).toBeGreaterThanOrEqual(10);
	}, 240_000);
});
