import type { MikroORM } from "@mikro-orm/postgresql";
import { createIngestionQueue } from "../jobs/ingestion-job";
import { startIngestionWorker, startOrphanSweeper } from "../jobs/ingestion-worker";
import { startJobQueue } from "../jobs/job-queue";
import type { SecretBox } from "../shared/crypto";
import type { Logger } from "../shared/logger";
import { lexicalIndexCache } from "./index/lexical-index";
import { listenForVectorChanges, vectorCache } from "./index/vector-cache";
import type { KnowledgeServices } from "./knowledge-services";
import type { KnowledgeOptions } from "./options";
import { setSearchDependencies } from "./search/search-knowledge";
import { VectorIndexes } from "./index/vector-indexes";
import { LocalDiskStorage, objectsDirectory } from "./storage/local-disk-storage";
import type { ObjectStorage, SelfServedUploads } from "./storage/object-storage";
import { UploadTokenSigner } from "./storage/upload-token";

export interface KnowledgeRuntime {
	services: KnowledgeServices;
	/** Present when presigned URLs point at this server (local-disk storage). */
	selfServedUploads?: { store: SelfServedUploads; signer: UploadTokenSigner };
	close(): Promise<void>;
}

/**
 * Knowledge's moving parts for one process: object storage, pg-boss (its own `pgboss` schema in
 * the same database), the vector cache's LISTEN connection, the orphan sweeper and, when
 * `runWorker`, the ingestion worker. Used by the platform (API server) and by server/worker.ts.
 */
export async function startKnowledge(input: {
	orm: MikroORM;
	databaseUrl: string;
	secretKey: string;
	secrets: SecretBox;
	dataDirectory: string;
	publicBaseUrl: () => string;
	options: KnowledgeOptions;
	logger: Logger;
	runWorker: boolean;
}): Promise<KnowledgeRuntime> {
	const signer = new UploadTokenSigner(input.secretKey);
	const storageOptions = input.options.storage;
	const localStorage = storageOptions.driver === "local" ? new LocalDiskStorage(objectsDirectory(input.dataDirectory), signer, input.publicBaseUrl) : undefined;
	// The AWS and Pinecone SDKs are loaded only when configured: together they add about a second
	// to every start of a default (local disk, PostgreSQL vectors) installation.
	const storage: ObjectStorage =
		localStorage ?? new (await import("./storage/s3-storage")).S3Storage(storageOptions as Extract<typeof storageOptions, { driver: "s3" }>);
	const pinecone = input.options.pinecone ? new (await import("./index/pinecone-vector-index")).PineconeVectorIndex(input.options.pinecone) : undefined;
	const vectorIndexes = new VectorIndexes(vectorCache, pinecone);
	const boss = await startJobQueue(input.databaseUrl, input.logger);
	await createIngestionQueue(boss, input.options.processingTimeoutSeconds);
	const services: KnowledgeServices = { storage, boss, secrets: input.secrets, options: input.options, vectorIndexes };
	setSearchDependencies({ secrets: input.secrets, cache: vectorCache, vectorIndexes });
	// One LISTEN connection for both per-source caches: the notification marks a change of the
	// source's chunks, which the vectors and the lexical index are both built from.
	const chunkCaches = [vectorCache, lexicalIndexCache];
	const listener = await listenForVectorChanges(
		input.databaseUrl,
		{ invalidate: (sourceId) => chunkCaches.forEach((cache) => cache.invalidate(sourceId)), clear: () => chunkCaches.forEach((cache) => cache.clear()) },
		input.logger,
	);
	const sweeper = startOrphanSweeper(input.orm, services, input.logger);
	if (input.runWorker) {
		const workerIds = await startIngestionWorker(input.orm, services, input.logger);
		services.wakeWorkers = () => {
			for (const workerId of workerIds) services.boss.notifyWorker(workerId);
		};
	}
	return {
		services,
		// S3 presigned URLs point at the bucket: this server then serves no PUT /uploads/:token.
		selfServedUploads: localStorage ? { store: localStorage, signer } : undefined,
		async close() {
			sweeper.stop();
			// Graceful: running jobs finish (or time out) before the database goes away.
			await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
			await listener.close();
			storage.close?.();
		},
	};
}
