import type { APIPromise } from "../core/api-promise.js";
import { fetchPagePromise, type PagePromise } from "../core/pagination.js";
import { type RequestOptions, sendRequest, sleep } from "../core/request.js";
import { resolveUpload, toBase64, type Uploadable } from "../core/uploads.js";
import { DocumentFailedError } from "../errors.js";
import * as api from "../generated/api.js";
import { pathSegment } from "./path-segment.js";
import type { ResourceClient } from "./resource-client.js";

/** Above this many bytes uploadAndPoll takes the presigned flow (the direct upload's limit, see DirectUploadRequest). */
export const DIRECT_UPLOAD_LIMIT_BYTES = 5 * 1024 * 1024;

/** How waitUntilReady polls: from `pollIntervalMs`, growing by half each time, up to `maxPollIntervalMs`. */
export interface PollOptions {
	/** First wait between two reads of the document. Default 250 ms. */
	pollIntervalMs?: number;
	/** Longest wait between two reads. Default 5 s. */
	maxPollIntervalMs?: number;
}

/** Page size (1 to 100, default 20), and where to start (a `nextCursor`; default the newest). */
export interface ListParams {
	limit?: number;
	cursor?: string;
}

export class KnowledgeResource {
	readonly sources: KnowledgeSourcesResource;
	readonly documents: KnowledgeDocumentsResource;

	constructor(client: ResourceClient) {
		this.sources = new KnowledgeSourcesResource(client);
		this.documents = new KnowledgeDocumentsResource(client);
	}
}

/** Knowledge sources of the key's workspace (scopes knowledge:read, knowledge:write). */
export class KnowledgeSourcesResource {
	constructor(private readonly client: ResourceClient) {}

	create(body: api.CreateKnowledgeSourceRequest, options?: RequestOptions): APIPromise<api.KnowledgeSource> {
		return api.createKnowledgeSource(body, undefined, { ...options, client: this.client });
	}

	/** Newest first. Await it for one page, or `for await` it for every source. */
	list(params: ListParams = {}, options?: RequestOptions): PagePromise<api.KnowledgeSource> {
		return fetchPagePromise((cursor) => api.listKnowledgeSources({ ...params, cursor }, { ...options, client: this.client }), params.cursor);
	}

	retrieve(sourceId: string, options?: RequestOptions): APIPromise<api.KnowledgeSource> {
		return api.getKnowledgeSource(pathSegment(sourceId), { ...options, client: this.client });
	}

	/** Deletes the source with all its documents. */
	delete(sourceId: string, options?: RequestOptions): APIPromise<api.Deleted> {
		return api.deleteKnowledgeSource(pathSegment(sourceId), { ...options, client: this.client });
	}

	/**
	 * Hybrid search over the source's READY documents (scope knowledge:read). Its parameters and
	 * answer are the generated operation's, so a change of the operation lands with a regeneration.
	 */
	search(
		sourceId: string,
		query: Parameters<typeof api.searchKnowledgeSource>[1],
		options?: RequestOptions,
	): ReturnType<typeof api.searchKnowledgeSource> {
		return api.searchKnowledgeSource(pathSegment(sourceId), query, { ...options, client: this.client });
	}
}

/** Documents of a knowledge source, their uploads and their ingestion (PENDING -> PROCESSING -> READY | FAILED). */
export class KnowledgeDocumentsResource {
	constructor(private readonly client: ResourceClient) {}

	/** Direct upload of a small document (at most 5 MiB): the bytes travel base64-encoded in the JSON body. */
	async upload(sourceId: string, file: Uploadable, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		const resolved = await resolveUpload(file);
		const body: api.DirectUploadRequest = {
			filename: resolved.name,
			contentBase64: toBase64(new Uint8Array(await resolved.arrayBuffer())),
			contentType: resolved.type,
		};
		return api.uploadKnowledgeDocument(pathSegment(sourceId), body, undefined, { ...options, client: this.client });
	}

	/** Presigned upload, step 1: creates the PENDING document and returns where to PUT its bytes. */
	createUpload(sourceId: string, body: api.PresignedUploadRequest, options?: RequestOptions): APIPromise<api.PresignedUpload> {
		return api.createKnowledgeDocumentUpload(pathSegment(sourceId), body, undefined, { ...options, client: this.client });
	}

	/** Presigned upload, step 3: confirms the bytes and enqueues ingestion. */
	complete(sourceId: string, documentId: string, options?: RequestOptions): APIPromise<api.KnowledgeDocument> {
		return api.completeKnowledgeDocumentUpload(pathSegment(sourceId), pathSegment(documentId), { ...options, client: this.client });
	}

	/**
	 * The whole presigned flow, for files up to 25 MiB: create the upload, PUT the bytes to object
	 * storage (with its headers, without the API key), complete. Resolves with the PENDING document.
	 */
	async uploadFile(sourceId: string, file: Uploadable, options?: RequestOptions): Promise<api.KnowledgeDocument> {
		const resolved = await resolveUpload(file);
		const { document, upload } = await this.createUpload(sourceId, { filename: resolved.name, contentType: resolved.type, byteSize: resolved.size }, options);
		// The caller's idempotency key belongs to step 1; the other steps are requests of their own.
		const laterSteps: RequestOptions = { ...options, idempotencyKey: undefined };
		await sendRequest(this.client.config, { method: "PUT", path: upload.url, headers: upload.headers, body: resolved, authenticate: false }, laterSteps, async (response) => {
			await response.arrayBuffer();
		});
		return this.complete(sourceId, document.id, laterSteps);
	}

	/**
	 * Uploads (directly up to 5 MiB, presigned beyond) and waits until the document is READY.
	 * Throws DocumentFailedError, with the server's reason, when ingestion fails.
	 */
	async uploadAndPoll(sourceId: string, file: Uploadable, options?: RequestOptions & PollOptions): Promise<api.KnowledgeDocument> {
		const resolved = await resolveUpload(file);
		const document = resolved.size <= DIRECT_UPLOAD_LIMIT_BYTES ? await this.upload(sourceId, resolved, options) : await this.uploadFile(sourceId, resolved, options);
		return this.waitUntilReady(sourceId, document.id, { ...options, idempotencyKey: undefined });
	}

	/**
	 * Reads the document until its ingestion ends, waiting longer between reads each time. Resolves
	 * with the READY document; throws DocumentFailedError on FAILED. Bound the wait with `signal`
	 * (e.g. `AbortSignal.timeout(60_000)`).
	 */
	async waitUntilReady(sourceId: string, documentId: string, options: RequestOptions & PollOptions = {}): Promise<api.KnowledgeDocument> {
		const { pollIntervalMs = 250, maxPollIntervalMs = 5_000, ...requestOptions } = options;
		let interval = pollIntervalMs;
		for (;;) {
			const document = await this.retrieve(sourceId, documentId, requestOptions);
			if (document.status === "READY") return document;
			if (document.status === "FAILED") throw new DocumentFailedError(document);
			await sleep(interval, requestOptions.signal ?? undefined);
			interval = Math.min(interval * 1.5, maxPollIntervalMs);
		}
	}

	/** Re-runs ingestion of a FAILED document. */
	retry(sourceId: string, documentId: string, options?: RequestOptions): APIPromise<api.KnowledgeDocument> {
		return api.retryKnowledgeDocument(pathSegment(sourceId), pathSegment(documentId), { ...options, client: this.client });
	}

	/** One document, with its status. */
	retrieve(sourceId: string, documentId: string, options?: RequestOptions): APIPromise<api.KnowledgeDocument> {
		return api.getKnowledgeDocument(pathSegment(sourceId), pathSegment(documentId), { ...options, client: this.client });
	}

	/** The source's documents, newest first. Await it for one page, or `for await` it for every document. */
	list(sourceId: string, params: ListParams = {}, options?: RequestOptions): PagePromise<api.KnowledgeDocument> {
		return fetchPagePromise(
			(cursor) => api.listKnowledgeDocuments(pathSegment(sourceId), { ...params, cursor }, { ...options, client: this.client }),
			params.cursor,
		);
	}

	/** Deletes the document and its stored bytes. */
	delete(sourceId: string, documentId: string, options?: RequestOptions): APIPromise<api.Deleted> {
		return api.deleteKnowledgeDocument(pathSegment(sourceId), pathSegment(documentId), { ...options, client: this.client });
	}
}
